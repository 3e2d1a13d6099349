// Issue 40: the SMS rules alone with the DLT checks on and off, in-process (no HTTP, no other
// thread): SmsPolicy.decide for bench/dlt-setup.mjs's account and text (a gateway started once to
// set it up, then stopped), 20,000 calls after 2,000 to warm up, scrubbing on then off, 4 rounds;
// CPU µs per call; the OTP differs in every call. Usage: npm run build && node bench/dlt-decide.mjs [BUILD_ROOT]
// (BUILD_ROOT: another checkout's built tree, to compare builds; default this one).

import net from "node:net";
import { DLT_CODE, DLT_TEXT, dltEnv, setUpDlt } from "./dlt-setup.mjs";
import { freshSqliteUrl, machine, startServer } from "./lib.mjs";

const root = process.argv[2] ?? new URL("..", import.meta.url).pathname;
const { openStore } = await import(`${root}/dist/base/store/store.js`);
const { SmsPolicy } = await import(`${root}/dist/channels/sms/policy.js`);
const { systemClock } = await import(`${root}/dist/base/core/clock.js`);
const port = await new Promise((resolve) => {
  const probe = net.createServer().listen(0, () => {
    const free = probe.address().port;
    probe.close(() => resolve(free));
  });
});
const db = freshSqliteUrl();
const env = { DATABASE_URL: db.url, PORT: String(port), LOG_LEVEL: "warn", ...dltEnv() };
const server = await startServer("start", env);
await setUpDlt(env, `http://127.0.0.1:${port}`, "on", 10000);
server.child.kill("SIGTERM");
await new Promise((r) => server.child.on("exit", r));
const store = await openStore({ engine: "sqlite", file: db.url.slice("sqlite:".length) });
const demo = await store.db
  .selectFrom("accounts")
  .select(["id"])
  .where("username", "=", "demo")
  .executeTakeFirstOrThrow();
const principal = { accountId: demo.id, username: "demo", role: "owner", status: "active", timeZone: "Asia/Kolkata" };
// The OTP differs in every call, as in real traffic and bench/dlt-send.mjs (1,000 codes in turn).
const inputs = Array.from({ length: 1000 }, (_, i) => ({
  senderId: "SWBRD",
  recipients: ["9876543210"],
  message: DLT_TEXT.replace(DLT_CODE, String(100_000 + ((i * 7919) % 900_000))),
}));
const cpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
async function measure(scrub) {
  await store.db
    .updateTable("accounts")
    .set({ dlt_scrubbing: scrub ? 1 : 0 })
    .where("id", "=", demo.id)
    .execute();
  const policy = new SmsPolicy(store, systemClock, undefined, {
    hours: { start: 0, end: 1440 },
    timeZone: "Asia/Kolkata",
    chainRequired: true,
  });
  for (let i = 0; i < 2000; i++) await policy.decide(principal, inputs[i % 1000]);
  const t0 = cpu();
  const n = 20000;
  for (let i = 0; i < n; i++) await policy.decide(principal, inputs[i % 1000]);
  return (cpu() - t0) / n;
}
console.log(machine());
for (let r = 0; r < 4; r++) {
  const on = await measure(true);
  const off = await measure(false);
  console.log(
    `round ${r + 1}: decide on ${on.toFixed(1)} µs, off ${off.toFixed(1)} µs, on-off ${(on - off).toFixed(1)} µs`,
  );
}
await store.close();
db.cleanup();
process.exit(0);
