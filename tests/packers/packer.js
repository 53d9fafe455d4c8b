// The declared rule in JavaScript, for `packcheck verify --packer-cmd "node packer.js"`.
// Numbers are doubles: exact within ±(2**53 - 1), the default --max-units.
"use strict";
const readline = require("readline");

const isUnit = (v, least) => typeof v === "number" && Number.isInteger(v) && v >= least;

function pack(c) {
  if (!isUnit(c.budget, 0) || !c.blocks.every((b) => isUnit(b.size, 1))) {
    return { error: "size" };
  }
  let remaining = c.budget;
  const kept = [];
  for (const b of c.blocks) {
    if (b.size <= remaining) {
      kept.push(b.id);
      remaining -= b.size;
    }
  }
  const keptSet = new Set(kept);
  // Array.prototype.sort compares UTF-16 code units: the declared order.
  const missing = c.required.filter((id) => !keptSet.has(id)).sort();
  return { kept, remaining, missing };
}

const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => process.stdout.write(JSON.stringify(pack(JSON.parse(line))) + "\n"));
