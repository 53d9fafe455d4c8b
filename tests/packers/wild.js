// Packers in the style of real ones that do NOT follow the declared rule, for
// `packcheck diff --packer-cmd "node wild.js NAME"`: the Node.js twins of wild.py.
//   keep_newest     a chat-history trimmer: from the newest block back, keep blocks
//                   while they fit, stop at the first that does not; oldest first
//   keep_newest_lt  the same with one line changed: `<` for `<=`
//   strict_budget   keep_newest, throwing a RangeError on a budget of 0
// Like wild.py's keep_newest_checked, a case with an invalid unit answers
// {"error":"size"}. Numbers are doubles: exact within ±(2**53 - 1).
"use strict";
const readline = require("readline");

const isUnit = (v, least) => typeof v === "number" && Number.isInteger(v) && v >= least;

function keepNewest(c, fits) {
  if (!isUnit(c.budget, 0) || !c.blocks.every((b) => isUnit(b.size, 1))) {
    return { error: "size" };
  }
  const kept = [];
  let total = 0;
  for (let i = c.blocks.length - 1; i >= 0; i--) {
    const b = c.blocks[i];
    if (!fits(total + b.size, c.budget)) break;
    kept.push(b.id);
    total += b.size;
  }
  kept.reverse();
  const have = new Set(kept);
  return { kept, remaining: c.budget - total, missing: c.required.filter((r) => !have.has(r)) };
}

const PACKERS = {
  keep_newest: (c) => keepNewest(c, (sum, budget) => sum <= budget),
  keep_newest_lt: (c) => keepNewest(c, (sum, budget) => sum < budget),
  strict_budget: (c) => {
    if (c.budget === 0) throw new RangeError("budget must be positive");
    return keepNewest(c, (sum, budget) => sum <= budget);
  },
};

const pack = PACKERS[process.argv[2]];
if (!pack) {
  process.stderr.write(`usage: node wild.js ${Object.keys(PACKERS).join("|")}\n`);
  process.exit(2);
}
const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => process.stdout.write(JSON.stringify(pack(JSON.parse(line))) + "\n"));
