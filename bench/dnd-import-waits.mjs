// How long a DND import holds the gateway's other writes (decision 0185 and its addendum): a
// `switchboard start` on a fresh database (SQLite unless --database) takes a DND import of
// --numbers numbers through the operator API (into a registry of --registry numbers already there;
// --replace empties it) while, every --every-ms, the operator adds one number to the registry and
// the demo account sends one v2 SMS. Reports the import's time and answer, and for the adds and the
// sends made meanwhile their count, the longest wait, the 99th percentile and how many failed.
// Usage: node bench/dnd-import-waits.mjs [--numbers 1000000] [--registry 0] [--replace] [--rounds 1]
//        [--every-ms 100] [--database postgres://…/db] [--port 18095]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { freshDatabase, machine, sendBenchEnv, startServer } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    numbers: { type: "string", default: "1000000" },
    registry: { type: "string", default: "0" },
    replace: { type: "boolean", default: false },
    rounds: { type: "string", default: "1" },
    "every-ms": { type: "string", default: "100" },
    database: { type: "string" },
    port: { type: "string", default: "18095" },
  },
});
const total = Number(values.numbers);
const registry = Number(values.registry);
const everyMs = Number(values["every-ms"]);
const base = `http://127.0.0.1:${values.port}`;

/** A CSV of `count` numbers from `from`, written once to a temporary file. */
function csvFile(name, count, from) {
  const file = path.join(os.tmpdir(), `bench-dnd-${name}-${process.pid}.csv`);
  const out = fs.openSync(file, "w");
  for (let i = 0; i < count; i += 100_000) {
    const lines = Array.from({ length: Math.min(100_000, count - i) }, (_, j) => String(from + i + j));
    fs.writeSync(out, `${lines.join("\n")}\n`);
  }
  fs.closeSync(out);
  return file;
}

async function postImport(key, file, replace) {
  const response = await fetch(`${base}/admin/api/dnd/import${replace ? "?replace=true" : ""}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "text/csv" },
    body: fs.createReadStream(file),
    duplex: "half",
  });
  return { status: response.status, body: await response.json() };
}

function summary(waits, failed) {
  const sorted = [...waits].sort((a, b) => a - b);
  const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0;
  return `${waits.length} calls, longest ${(sorted.at(-1) ?? 0).toFixed(0)} ms, p99 ${p99.toFixed(0)} ms, ${failed} failed`;
}

async function round(n) {
  const database = await freshDatabase(values.database, "bench_dnd");
  const env = { ...sendBenchEnv(database.url, values.port), DND_IMPORT_MAX_MB: "4096" };
  const { child, demoKey, output } = await startServer("start", env);
  try {
    const operatorKey = /Operator[\s\S]*?api key:\s+(\S+)/.exec(output())?.[1];
    if (registry > 0) {
      const filled = await postImport(operatorKey, csvFile("registry", registry, 6_000_000_000), false);
      if (filled.status !== 200) throw new Error(`filling the registry: ${JSON.stringify(filled.body)}`);
    }
    const file = csvFile("import", total, 7_000_000_000);
    const adds = { waits: [], failed: 0 };
    const sends = { waits: [], failed: 0 };
    let done = false;
    const timed = async (into, call) => {
      const started = performance.now();
      try {
        const response = await call();
        await response.arrayBuffer();
        if (!response.ok) into.failed += 1;
      } catch {
        into.failed += 1;
      }
      into.waits.push(performance.now() - started);
    };
    const traffic = (async () => {
      const pending = [];
      for (let i = 0; !done; i += 1) {
        pending.push(
          timed(adds, () =>
            fetch(`${base}/admin/api/dnd`, {
              method: "POST",
              headers: { authorization: `Bearer ${operatorKey}`, "content-type": "application/json" },
              body: JSON.stringify({ numbers: [String(8_000_000_000 + i)] }),
            }),
          ),
          timed(sends, () =>
            fetch(`${base}/api/v2/sms/send`, {
              method: "POST",
              headers: { authorization: `Bearer ${demoKey}`, "content-type": "application/json" },
              body: JSON.stringify({
                sender_id: "SWBRD",
                recipient: String(9_000_000_000 + i),
                message: "Your OTP is 482913. Do not share it with anyone.",
              }),
            }),
          ),
        );
        await new Promise((resolve) => setTimeout(resolve, everyMs));
      }
      await Promise.all(pending);
    })();
    const started = performance.now();
    const answer = await postImport(operatorKey, file, values.replace);
    const seconds = (performance.now() - started) / 1000;
    done = true;
    await traffic;
    console.log(
      `round ${n}: import of ${total.toLocaleString("en")} numbers${values.replace ? " (replace)" : ""} into ${registry.toLocaleString("en")}: ${answer.status} in ${seconds.toFixed(1)} s, ${JSON.stringify(answer.body.data ?? answer.body)}`,
    );
    console.log(`  operator adds meanwhile: ${summary(adds.waits, adds.failed)}`);
    console.log(`  v2 sends meanwhile:      ${summary(sends.waits, sends.failed)}`);
    fs.rmSync(file, { force: true });
  } finally {
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
    await database.cleanup();
  }
}

console.log(machine());
console.log(
  `load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`,
);
for (let n = 1; n <= Number(values.rounds); n += 1) await round(n);
