// What the delivery rollups cost the writers of messages (decision 0111), in-process on a SQLite
// file: per accept commit group of --group messages (one account, varied Indian prefixes), the
// CPU of inserting the rows (insertMany) and, separately, of summing and writing their rollups
// (RollupChanges); then per batch of 500 submits and of 500 delivery reports, the rollups' share.
// A steadier figure than a whole `start` under wrk on a shared machine.
// Usage: npm run build && node bench/rollup-cost.mjs [--groups 2000] [--group 30]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createAccountWithKey } from "../dist/app/admin/index.js";
import { systemClock } from "../dist/base/core/clock.js";
import { openStore } from "../dist/base/store/store.js";
import { cliActor } from "../dist/domain/audit/index.js";
import { messageRow, RollupChanges } from "../dist/domain/messages/index.js";

const { values } = parseArgs({
  options: { groups: { type: "string", default: "2000" }, group: { type: "string", default: "30" } },
});
const GROUPS = Number(values.groups);
const GROUP = Number(values.group);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-rollup-cost-"));
const store = await openStore({ engine: "sqlite", file: path.join(dir, "bench.db") }, { sqliteSynchronous: "NORMAL" });
await store.migrate();
const account = await createAccountWithKey(
  { store, clock: systemClock, actor: cliActor() },
  { username: "bench", password: "bench-password", credits: { sms: 10 } },
);

const cpu = () => {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
};
let seed = 7;
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};
let at = Date.parse("2026-11-28T06:00:00Z");
let n = 0;
const rowsOfGroup = () =>
  Array.from({ length: GROUP }, () => {
    n++;
    return messageRow({
      id: `q${String(n).padStart(25, "0")}`,
      account_id: account.id,
      channel: "sms",
      broadcast_id: `b${n}`,
      recipient: `${6 + Math.floor(random() * 4)}${String(Math.floor(random() * 1e9)).padStart(9, "0")}`,
      sender: "SWBRD",
      body: "Your OTP is 482913. Do not share it with anyone.",
      route: random() < 0.7 ? "transactional" : "promotional",
      lane: 0,
      wallet: "sms",
      credits: 1000,
      status: "queued",
      due_at: at,
      created_at: at,
    });
  });

let insertCpu = 0;
let rollupCpu = 0;
let sumCpu = 0;
let rowsWritten = 0;
const all = [];
for (let g = 0; g < GROUPS; g++) {
  at += 20;
  const rows = rowsOfGroup();
  await store.transaction(async (trx) => {
    let started = cpu();
    await store.insertMany(trx, "messages", rows);
    insertCpu += cpu() - started;
    started = cpu();
    const rollups = new RollupChanges();
    for (const row of rows) rollups.add(row, 1);
    const summed = cpu();
    sumCpu += summed - started;
    rowsWritten += rollups.rows.size;
    await rollups.write(store, trx);
    rollupCpu += cpu() - started;
  });
  all.push(...rows);
}
const messages = GROUPS * GROUP;
console.log(
  `accept: ${messages} messages in groups of ${GROUP}: insert ${(insertCpu / messages).toFixed(1)} µs CPU per message, ` +
    `rollups ${(rollupCpu / messages).toFixed(1)} µs per message (${(rollupCpu / GROUPS).toFixed(0)} µs per group: ${(sumCpu / GROUPS).toFixed(0)} µs summing, ` +
    `${(rowsWritten / GROUPS).toFixed(1)} rows written)`,
);

// Batches of 500: a submit moves each from no connector to one of four; a report to delivered or failed.
for (const [name, change] of [
  ["submit", (m) => [m, { ...m, connector: `smsc-${m.recipient.at(-1) % 4}`, status: "submitted" }]],
  [
    "report",
    (m) => [
      { ...m, connector: `smsc-${m.recipient.at(-1) % 4}`, status: "submitted" },
      {
        ...m,
        connector: `smsc-${m.recipient.at(-1) % 4}`,
        status: random() < 0.9 ? "delivered" : "failed",
        error_code: "UNDELIV",
        done_at: m.created_at + 1000 + Math.floor(random() * 5000),
      },
    ],
  ],
]) {
  let used = 0;
  for (let i = 0; i < all.length; i += 500) {
    await store.transaction(async (trx) => {
      const started = cpu();
      const rollups = new RollupChanges();
      for (const m of all.slice(i, i + 500)) {
        const [before, after] = change(m);
        rollups.move(before, after);
      }
      await rollups.write(store, trx);
      used += cpu() - started;
    });
  }
  console.log(`${name}: rollups ${(used / all.length).toFixed(1)} µs CPU per message, in batches of 500`);
}
await store.close();
fs.rmSync(dir, { recursive: true, force: true });
