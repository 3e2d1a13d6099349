// Webhook delivery throughput: N delivery_report events written to the outbox (as the
// pipeline writes them), then the webhook sender posts them, signed, to a local receiver
// running in its own process; the run ends when every delivery is recorded delivered. Checks
// that the receiver got each webhook-id exactly once.
// Usage: node bench/webhooks.mjs [--events 50000] [--accounts 10] [--database postgres://…]
import { fork } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { machine } from "./lib.mjs";

if (process.argv[2] === "--receiver") {
  // The receiver: counts requests and distinct webhook-ids, answers 200 at once.
  const http = await import("node:http");
  const ids = new Set();
  let requests = 0;
  const server = http.createServer((req, res) => {
    requests++;
    ids.add(req.headers["webhook-id"]);
    req.resume();
    req.on("end", () => res.writeHead(200).end());
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, "127.0.0.1", () => process.send({ port: server.address().port }));
  process.on("message", (m) => {
    if (m === "count") process.send({ requests, unique: ids.size });
  });
} else {
  await main();
}

async function main() {
  const { values } = parseArgs({
    options: {
      events: { type: "string", default: "50000" },
      accounts: { type: "string", default: "10" },
      database: { type: "string" },
    },
  });
  const events = Number(values.events);
  const accountsCount = Number(values.accounts);
  const dist = new URL("../dist/", import.meta.url).pathname;
  const { openStore } = await import(`${dist}store/store.js`);
  const { systemClock } = await import(`${dist}core/clock.js`);
  const { createAccountWithKey } = await import(`${dist}admin/index.js`);
  const { WebhookOutbox } = await import(`${dist}webhooks/outbox.js`);
  const { emailNotifyTargets } = await import(`${dist}email/index.js`);
  const { setWebhookUrls } = await import(`${dist}webhooks/settings.js`);
  const { DEFAULT_SENDER_OPTIONS, WebhookSender } = await import(`${dist}webhooks/sender.js`);
  const { createLogger } = await import(`${dist}app/gateway.js`);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-webhooks-"));
  const store = values.database
    ? await openStore({ engine: "postgres", url: values.database })
    : await openStore({ engine: "sqlite", file: path.join(dir, "bench.db") }, { sqliteSynchronous: "FULL" });
  await store.migrate();

  const receiver = fork(new URL(import.meta.url).pathname, ["--receiver"]);
  const { port } = await new Promise((resolve) => receiver.once("message", resolve));
  const url = `http://127.0.0.1:${port}/hook`;

  const accounts = [];
  for (let i = 0; i < accountsCount; i++) {
    const created = await createAccountWithKey(
      { store, clock: systemClock },
      { username: `wh${Date.now()}_${i}`, password: "pw-12345678", credits: { sms: 1 } },
    );
    await setWebhookUrls(store, systemClock, created.id, { delivery_report: url });
    accounts.push(created.id);
  }
  const outbox = new WebhookOutbox(store, emailNotifyTargets);
  for (let offset = 0; offset < events; offset += 5_000) {
    const batch = [];
    for (let i = offset; i < Math.min(events, offset + 5_000); i++) {
      batch.push({
        id: `q${String(i).padStart(26, "0")}`,
        account_id: accounts[i % accounts.length],
        recipient: String(9_000_000_000 + i),
        status: "delivered",
        at: Date.now(),
      });
    }
    await store.transaction((trx) => outbox.deliveryReports(trx, batch, Date.now()));
  }

  const sender = new WebhookSender(
    { store, clock: systemClock, logger: createLogger({ logLevel: "warn" }) },
    { ...DEFAULT_SENDER_OPTIONS, allowPrivate: true, idleMs: 50 },
  );
  const started = performance.now();
  sender.start();
  for (;;) {
    await new Promise((r) => setTimeout(r, 500));
    const left = await store.db
      .selectFrom("webhook_deliveries")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("status", "!=", "delivered")
      .executeTakeFirstOrThrow();
    if (Number(left.n) === 0) break;
  }
  const seconds = (performance.now() - started) / 1000;
  await sender.stop();
  receiver.send("count");
  const counts = await new Promise((resolve) => receiver.once("message", resolve));
  console.log(
    `delivered ${events} webhooks (${accountsCount} accounts) in ${seconds.toFixed(2)} s = ${(events / seconds).toFixed(0)}/s; ` +
      `receiver got ${counts.requests} requests, ${counts.unique} distinct webhook-ids: ${counts.requests === events && counts.unique === events ? "exactly once" : "MISMATCH"}`,
  );
  console.log(
    `machine: ${machine()}; database: ${values.database ? "postgres" : "sqlite (WAL, synchronous=FULL)"}; sender concurrency ${DEFAULT_SENDER_OPTIONS.concurrency}, ${DEFAULT_SENDER_OPTIONS.perAccount} per account`,
  );
  receiver.kill();
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
