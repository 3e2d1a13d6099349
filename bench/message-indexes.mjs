// What indexes of the messages table cost the send path: the writes every message makes (its
// insert, then submitted and delivered) timed on a fresh database under two index sets,
// alternately, --rounds times each; the best round of each is printed as microseconds of
// database time per message. Recipients are drawn from a million numbers, so an index by
// number sees insert positions as in real traffic.
//   default: the indexes of today's migrations against those migration 0015 replaced
//   --candidate "account_id, recipient, created_at, id": today's plus an index on those
//            columns, against today's (what adding it would cost)
// The load generator of bench/sms-send.mjs shares the two cores with the gateway, and other
// work on the machine moves its figures by more than an index costs; this measures the writes
// alone. Usage: node bench/message-indexes.mjs [--messages 100000] [--rounds 3]
//   [--candidate "columns"] [--database postgres://…]   (npm run build first)

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { sql } from "kysely";
import { createAccountWithKey } from "../dist/app/admin/index.js";
import { systemClock } from "../dist/base/core/clock.js";
import { openStore } from "../dist/base/store/store.js";
import { cliActor } from "../dist/domain/audit/index.js";
import { machine } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    messages: { type: "string", default: "100000" },
    rounds: { type: "string", default: "3" },
    candidate: { type: "string" },
    database: { type: "string" },
  },
});
const count = Number(values.messages);
const BATCH = 500;

async function round(withIndex) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-idx-"));
  const schema = `sb_idx_${process.pid}_${Date.now()}`;
  const target = values.database
    ? { engine: "postgres", url: values.database }
    : { engine: "sqlite", file: path.join(dir, "idx.db") };
  if (values.database) {
    const admin = await openStore(target);
    await sql.raw(`create schema ${schema}`).execute(admin.db);
    await admin.close();
  }
  const store = await openStore(target, values.database ? { pgSchema: schema } : { sqliteSynchronous: "FULL" });
  await store.migrate();
  if (values.candidate && withIndex) {
    await sql.raw(`create index bench_candidate on messages (${values.candidate})`).execute(store.db);
  } else if (!values.candidate && !withIndex) {
    // The indexes of migration 0002 that 0015 replaced.
    for (const name of ["messages_by_account_created", "messages_by_broadcast_created"]) {
      await sql.raw(`drop index ${name}`).execute(store.db);
    }
    await sql.raw("create index messages_by_account_time on messages (account_id, created_at)").execute(store.db);
    await sql.raw("create index messages_by_broadcast on messages (broadcast_id)").execute(store.db);
  }
  const { id: accountId } = await createAccountWithKey(
    { store, clock: systemClock, actor: cliActor() },
    { username: "bench", password: "bench-password", credits: { sms: 1 } },
  );
  const base = Date.now();
  const ids = Array.from({ length: count }, (_, i) => `q${String(i).padStart(26, "0")}`);
  const timed = async (fn) => {
    const started = performance.now();
    for (let i = 0; i < count; i += BATCH) await store.transaction((trx) => fn(trx, i, Math.min(count, i + BATCH)));
    return ((performance.now() - started) * 1000) / count;
  };
  const insert = await timed((trx, from, to) =>
    store.insertMany(
      trx,
      "messages",
      ids.slice(from, to).map((id, k) => ({
        // The columns a send writes that have no default; the others stay null, as at acceptance.
        id,
        account_id: accountId,
        channel: "sms",
        broadcast_id: `${accountId}_20261122_${String(from + k).padStart(6, "0")}`,
        recipient: String(9_000_000_000 + Math.floor(Math.random() * 1_000_000)),
        sender: "SWBRD",
        body: "Your OTP is 482913. Do not share it with anyone.",
        encoding: "gsm7",
        route: "transactional",
        lane: 0,
        wallet: "sms",
        credits: 1000,
        status: "queued",
        due_at: base,
        created_at: base + from + k,
      })),
    ),
  );
  const move = (set) => (trx, from, to) =>
    trx.updateTable("messages").set(set).where("id", "in", ids.slice(from, to)).execute();
  const submit = await timed((trx, from, to) =>
    sql`update messages set status = 'submitted', connector = 'simulator', upstream_id = 'SIM' || id,
          submitted_at = ${base} where id in (${sql.join(ids.slice(from, to))})`.execute(trx),
  );
  const deliver = await timed(move({ status: "delivered", done_at: base }));
  await store.close();
  if (values.database) {
    const admin = await openStore(target);
    await sql.raw(`drop schema ${schema} cascade`).execute(admin.db);
    await admin.close();
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return { insert, submit, deliver, total: insert + submit + deliver };
}

console.log(
  `${machine()}; ${values.database ? "postgres" : "sqlite (WAL, synchronous=FULL)"}; ${count} messages in transactions of ${BATCH}; ${values.candidate ? `with: today's indexes and one on (${values.candidate}); without: today's` : "with: today's indexes; without: those migration 0015 replaced"}`,
);
const best = { with: undefined, without: undefined };
for (let r = 0; r < Number(values.rounds); r++) {
  for (const variant of ["with", "without"]) {
    const result = await round(variant === "with");
    const line = Object.entries(result)
      .map(([k, v]) => `${k} ${v.toFixed(1)}`)
      .join(", ");
    console.log(`round ${r + 1} ${variant.padEnd(7)} µs/message: ${line}`);
    if (!best[variant] || result.total < best[variant].total) best[variant] = result;
  }
}
const extra = best.with.total - best.without.total;
console.log(
  `best: with ${best.with.total.toFixed(1)} µs/message, without ${best.without.total.toFixed(1)} µs/message: a difference of ${extra.toFixed(1)} µs (${((100 * extra) / best.without.total).toFixed(1)} %)`,
);
