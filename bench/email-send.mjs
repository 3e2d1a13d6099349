// Email throughput: POST /httpemailapi/v1/send (form, api key, one recipient each) against a
// real gateway process whose smtp connector delivers to a local SMTP server (smtp-server, in
// its own process, answering 250 at once). Reports emails accepted per second (the load
// phase) and delivered per second (from the first acceptance until the relay has every one),
// then checks that the relay received each accepted message exactly once and that the ledger
// charged exactly one credit per accepted email.
// Usage: node bench/email-send.mjs [--seconds 20] [--connections 50] [--pool 10] [--database postgres://…]
import { fork } from "node:child_process";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { cli, freshSqliteUrl, machine, startServer, waitFor } from "./lib.mjs";

if (process.argv[2] === "--relay") {
  const { SMTPServer } = await import("smtp-server");
  const ids = new Set();
  let messages = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    maxClients: 1000,
    onData(stream, session, callback) {
      stream.on("data", () => undefined);
      stream.on("end", () => {
        messages++;
        for (const rcpt of session.envelope.rcptTo) ids.add(`${session.envelope.mailFrom.address}|${rcpt.address}`);
        callback(null, `Ok: queued as R${messages}`);
      });
    },
  });
  server.listen(0, "127.0.0.1", () => process.send({ port: server.server.address().port }));
  process.on("message", (m) => {
    if (m === "count") process.send({ messages, unique: ids.size });
  });
} else {
  await main();
}

async function main() {
  const { values } = parseArgs({
    options: {
      seconds: { type: "string", default: "20" },
      connections: { type: "string", default: "50" },
      pool: { type: "string", default: "10" },
      database: { type: "string" },
      port: { type: "string", default: "18094" },
    },
  });
  const relay = fork(new URL(import.meta.url).pathname, ["--relay"], { stdio: "inherit" });
  const relayPort = await new Promise((resolve) => relay.once("message", (m) => resolve(m.port)));
  const count = () =>
    new Promise((resolve) => {
      relay.once("message", resolve);
      relay.send("count");
    });

  const db = values.database ? { url: values.database, cleanup: () => undefined } : freshSqliteUrl();
  const env = {
    DATABASE_URL: db.url,
    PORT: values.port,
    LOG_LEVEL: "warn",
    EMAIL_CONNECTOR: "smtp",
    SMTP_URL: `smtp://127.0.0.1:${relayPort}`,
    SMTP_POOL_SIZE: values.pool,
    SQLITE_SYNCHRONOUS: process.env.SQLITE_SYNCHRONOUS ?? "FULL",
  };
  const base = `http://127.0.0.1:${values.port}`;
  const server = await startServer("start", env);
  const operatorKey = /Operator[\s\S]*?api key:\s+(\S+)/.exec(server.output())?.[1];
  cli(env, "credits", "add", "--account", "demo", "--wallet", "email", "--amount", "100000000");
  const domain = await fetch(`${base}/admin/api/accounts/demo/email/domains`, {
    method: "POST",
    headers: { authorization: `Bearer ${operatorKey}`, "content-type": "application/json" },
    body: JSON.stringify({ domain: "shop.example.com", approve: true }),
  });
  if (!domain.ok) throw new Error(`adding the sending domain failed: ${await domain.text()}`);

  const form = new URLSearchParams({
    api_key: server.demoKey,
    from: "Shop <news@shop.example.com>",
    to: "asha@example.org",
    subject: "Your order has shipped",
    html: `<html><body><p>Hello Asha,</p><p>Your order 1042 has shipped.</p>${"<p>Details of the order follow.</p>".repeat(20)}</body></html>`,
    text: "Hello Asha, your order 1042 has shipped.",
  }).toString();
  const probe = await (
    await fetch(`${base}/httpemailapi/v1/send`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form,
    })
  ).text();
  if (!/^\d+_\d{8}_\d+$/.test(probe)) throw new Error(`the probe send was refused: ${probe}`);

  const balance = () => JSON.parse(cli(env, "accounts", "show", "demo", "--json")).balances.email;
  const before = balance();
  const started = Date.now();
  const result = await autocannon({
    url: `${base}/httpemailapi/v1/send`,
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: form,
    connections: Number(values.connections),
    duration: Number(values.seconds),
  });
  const loadSeconds = (Date.now() - started) / 1000;
  // Requests still in flight when the load stopped are answered (and charged) a moment later.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const accepted = before - balance();
  // The probe send too.
  const total = accepted + 1;
  await waitFor(async () => (await count()).messages >= total, { timeoutMs: 600_000, intervalMs: 200 });
  const deliveredSeconds = (Date.now() - started) / 1000;
  const relayed = await count();
  const after = balance();

  console.log(
    JSON.stringify(
      {
        machine: machine(),
        database: values.database ? "postgres" : "sqlite",
        connections: Number(values.connections),
        smtp_pool: Number(values.pool),
        requests: result.requests.total,
        non_2xx: result.non2xx,
        errors: result.errors,
        accepted: total,
        accepted_per_second: Math.round(accepted / loadSeconds),
        latency_ms: { p50: result.latency.p50, p99: result.latency.p99 },
        relayed_messages: relayed.messages,
        relayed_unique: relayed.unique,
        delivered_per_second: Math.round(total / deliveredSeconds),
        seconds_until_all_relayed: Number(deliveredSeconds.toFixed(1)),
        // Every relayed message was charged once, and nothing else: the balance fell by exactly the accepted count.
        ledger_exact: relayed.unique === total && after === before - accepted,
      },
      null,
      2,
    ),
  );
  server.child.kill("SIGTERM");
  relay.kill();
  db.cleanup();
}
