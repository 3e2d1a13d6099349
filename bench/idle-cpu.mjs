// The CPU of an idle gateway (issue 43): `switchboard start` as the README runs it (the simulated
// carriers, no traffic) on a fresh database, left alone --settle-seconds, then watched for
// --seconds. Prints the whole process's CPU in ms per second (utime + stime of every thread) and
// wakeups per second (voluntary context switches: each is a thread going to sleep, so each is a
// wakeup after), then the same per thread: Node 20 names every thread "node", so the event loops
// are told apart by /proc's wchan (a thread waiting in epoll runs a libuv loop): the main thread
// (the process's id), V8's delayed-task thread (the first after it) and the worker thread (the
// others); the threads waiting on a futex are V8's helpers (garbage collection) and libuv's pool. --runs repeats it on
// a fresh database each time. With --profile DIR each run writes a V8 CPU profile per JavaScript
// thread (--cpu-prof) into DIR, to see which ticks cost what.
// BENCH_SWITCHBOARD_ENV (URL-encoded) adds settings; BENCH_SERVER_NODE_ARGS adds node flags (bench/lib.mjs).
// Usage: npm run build && node bench/idle-cpu.mjs [--settle-seconds 10] [--seconds 30] [--runs 1]
//        [--database postgres://…/db] [--profile /tmp/idle-prof]
import fs from "node:fs";
import { parseArgs } from "node:util";
import { benchEnvOverrides, freePort, freshDatabase, machine, startServer } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    "settle-seconds": { type: "string", default: "10" },
    seconds: { type: "string", default: "30" },
    runs: { type: "string", default: "1" },
    database: { type: "string" },
    profile: { type: "string" },
  },
});
const seconds = Number(values.seconds);
if (values.profile) {
  fs.mkdirSync(values.profile, { recursive: true });
  process.env.BENCH_SERVER_NODE_ARGS =
    `${process.env.BENCH_SERVER_NODE_ARGS ?? ""} --cpu-prof --cpu-prof-dir=${values.profile}`.trim();
}

console.log(
  `machine: ${machine()}; load average ${fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}; database: ${values.database ? "postgres" : "sqlite"}; settings: ${process.env.BENCH_SWITCHBOARD_ENV ?? "defaults"}`,
);
for (let run = 1; run <= Number(values.runs); run++) {
  const db = await freshDatabase(values.database, "bench_idle");
  const env = { PORT: String(await freePort()), DATABASE_URL: db.url, LOG_LEVEL: "warn", ...benchEnvOverrides() };
  const server = await startServer("start", env);
  const pid = server.child.pid;
  await sleep(Number(values["settle-seconds"]) * 1000);
  const before = threads(pid);
  await sleep(seconds * 1000);
  const after = threads(pid);

  // The helpers summed; a thread started meanwhile counts from 0.
  const loops = [...new Set([...before, ...after].filter(([, t]) => t.inEpoll).map(([tid]) => Number(tid)))]
    .filter((tid) => tid !== pid)
    .sort((a, b) => a - b);
  const role = (tid) =>
    Number(tid) === pid
      ? "main thread"
      : loops.indexOf(Number(tid)) === 0
        ? "V8 delayed tasks"
        : loops.includes(Number(tid))
          ? "worker thread"
          : "helpers (V8, libuv)";
  const byName = new Map();
  for (const [tid, now] of after) {
    const was = before.get(tid) ?? { cpu: 0, switches: 0 };
    const name = role(tid);
    const sum = byName.get(name) ?? { count: 0, cpu: 0, switches: 0 };
    sum.count += 1;
    sum.cpu += now.cpu - was.cpu;
    sum.switches += now.switches - was.switches;
    byName.set(name, sum);
  }
  const figure = ({ cpu, switches }) =>
    `${((cpu * 1000) / seconds).toFixed(1)} ms/s CPU, ${(switches / seconds).toFixed(0)} wakeups/s`;
  const total = [...byName.values()].reduce((a, b) => ({ cpu: a.cpu + b.cpu, switches: a.switches + b.switches }), {
    cpu: 0,
    switches: 0,
  });
  console.log(`run ${run}: process ${figure(total)}`);
  for (const [name, sum] of [...byName].sort((a, b) => b[1].cpu - a[1].cpu)) {
    if (sum.cpu > 0 || sum.switches > 0)
      console.log(`  ${name}${sum.count > 1 ? ` (${sum.count})` : ""}: ${figure(sum)}`);
  }

  server.child.kill("SIGTERM");
  await new Promise((resolve) => server.child.once("exit", resolve));
  await db.cleanup();
}
if (values.profile) console.log(`CPU profiles in ${values.profile}`);
process.exit(0);

/** Each thread's CPU seconds (utime + stime), voluntary context switches and whether it waits in epoll, by thread id. */
function threads(pid) {
  const out = new Map();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const status = fs.readFileSync(`/proc/${pid}/task/${tid}/status`, "utf8");
      out.set(tid, {
        inEpoll: fs.readFileSync(`/proc/${pid}/task/${tid}/wchan`, "utf8").includes("epoll"),
        cpu: (Number(fields[11]) + Number(fields[12])) / 100,
        switches: Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0),
      });
    } catch {
      // The thread ended while we looked.
    }
  }
  return out;
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
