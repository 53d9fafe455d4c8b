// Packers with the faults real JavaScript packers have, one per name:
// `packcheck verify --packer-cmd "node faults.js FAULT"`.  Numbers are doubles.
"use strict";
const readline = require("readline");

const isUnit = (v, least) => typeof v === "number" && Number.isInteger(v) && v >= least;

const loops = {
  // Chat history: from the newest message back, stop at the first misfit.
  suffix(budget, items) {
    const out = [];
    let total = 0;
    for (let i = items.length - 1; i >= 0; i--) {
      if (total + items[i].size > budget) break;
      total += items[i].size;
      out.unshift(items[i]);
    }
    return [out, budget - total];
  },
  middle(budget, items) {
    const out = items.slice();
    let total = out.reduce((sum, b) => sum + b.size, 0);
    while (total > budget) total -= out.splice(Math.floor(out.length / 2), 1)[0].size;
    return [out, budget - total];
  },
  overshoot(budget, items) {
    const out = [];
    let used = 0;
    for (const b of items) {
      if (used >= budget) break;
      out.push(b);
      used += b.size;
    }
    return [out, budget - used];
  },
  strict(budget, items) {
    const out = [];
    let left = budget;
    for (const b of items) if (b.size < left) { out.push(b); left -= b.size; }
    return [out, left];
  },
  stops(budget, items) {
    const out = [];
    let left = budget;
    for (const b of items) { if (b.size > left) break; out.push(b); left -= b.size; }
    return [out, left];
  },
  separator(budget, items) {
    const out = [];
    let left = budget;
    for (const b of items) if (b.size + 2 <= left) { out.push(b); left -= b.size + 2; }
    return [out, left];
  },
  largest(budget, items) {
    const out = [];
    let left = budget;
    for (const b of items.slice().sort((x, y) => y.size - x.size)) {
      if (b.size <= left) { out.push(b); left -= b.size; }
    }
    return [out, left];
  },
  last(budget, items) {
    const out = [];
    let left = budget;
    for (let i = 0; i < items.length - 1; i++) {
      if (items[i].size <= left) { out.push(items[i]); left -= items[i].size; }
    }
    return [out, left];
  },
  share(budget, items) {
    const out = [];
    let left = Math.floor(budget * 0.75);
    for (const b of items) if (b.size <= left) { out.push(b); left -= b.size; }
    return [out, budget - out.reduce((sum, b) => sum + b.size, 0)];
  },
};

const loop = loops[process.argv[2]];
function pack(c) {
  if (!isUnit(c.budget, 0) || !c.blocks.every((b) => isUnit(b.size, 1))) {
    return { error: "size" };
  }
  const [out, remaining] = loop(c.budget, c.blocks);
  const kept = out.map((b) => b.id);
  const keptSet = new Set(kept);
  const missing = c.required.filter((id) => !keptSet.has(id)).sort();
  return { kept, remaining, missing };
}

const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => process.stdout.write(JSON.stringify(pack(JSON.parse(line))) + "\n"));
