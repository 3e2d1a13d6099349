// The SMPP server of a real `switchboard start` on SQLite with its two threads: the main thread
// holds the SMPP sockets and hands its writes to smpp_outbox (claim, retry, delete) to the worker
// thread, the one writer of the file. Twenty submits with registered_delivery each get their
// receipt, the first after the client refused it once; the outbox is empty afterwards.
import BetterSqlite3 from "better-sqlite3";
import { afterAll, beforeAll, expect, it } from "vitest";
import { cliOk, DEMO_TEXT, demoKey, type ServerProcess, startServer } from "../../helpers/cli.js";
import { createTestDatabase, type TestDatabase } from "../../helpers/engines.js";
import { freePort } from "../../helpers/throwaway.js";
import { connectEsme, until } from "./client.js";

const ESME_RX_T_APPN = 0x64;

let db: TestDatabase;
let server: ServerProcess | undefined;
let port: number;
let file: string;

beforeAll(async () => {
  db = await createTestDatabase("sqlite");
  file = db.url.slice("sqlite:".length);
  port = await freePort();
  const env = {
    DATABASE_URL: db.url,
    SQLITE_SYNCHRONOUS: "NORMAL",
    SWITCHBOARD_THREADS: "2",
    SMPP_SERVER_PORT: String(port),
    SMPP_SERVER_DELIVER_RETRY_MS: "300",
    SIMULATOR_LATENCY_MS: "20",
    SIMULATOR_FAILURE_RATE: "0",
  };
  server = await startServer("start", env, { timeoutMs: 60_000 });
  await cliOk(["credits", "add", "--account", "demo", "--wallet", "sms", "--amount", "100"], env);
  await cliOk(
    ["accounts", "set", "--username", "demo", "--smpp-password", "thr3ad", "--smpp-submits-per-second", "0"],
    env,
  );
}, 90_000);

afterAll(async () => {
  await server?.stop();
  await db?.drop();
});

function outboxRows(): number {
  const raw = new BetterSqlite3(file, { readonly: true });
  try {
    return (raw.prepare("select count(*) as n from smpp_outbox").get() as { n: number }).n;
  } finally {
    raw.close();
  }
}

it("delivers every receipt through the worker thread's writes, a refused one again, and empties the outbox", async () => {
  const client = await connectEsme(port);
  expect((await client.bind("transceiver", "demo", "thr3ad")).command_status).toBe(0);
  let refusals = 0;
  client.answerDeliver = () => (refusals++ === 0 ? ESME_RX_T_APPN : 0);
  const ids: string[] = [];
  for (let i = 0; i < 20; i++) {
    const answer = await client.submit({
      source_addr: "SWBRD",
      destination_addr: `98765432${String(i).padStart(2, "0")}`,
      // The demo account's DLT template.
      short_message: `Your OTP is 4829${String(i).padStart(2, "0")}. Do not share it with anyone.`,
      registered_delivery: 1,
    });
    expect(answer.command_status).toBe(0);
    ids.push(answer.message_id as string);
  }
  await until(() => client.accepted.length === 20, 30_000, "every receipt taken");
  expect(client.delivered).toHaveLength(21);
  expect(client.accepted.map((pdu) => pdu.receipted_message_id).sort()).toEqual([...ids].sort());
  await until(() => outboxRows() === 0, 10_000, "the outbox emptied");
}, 60_000);

// Every send goes to the worker thread's Acceptor, the file's one writer (issue 37): an order is
// data, posted to the thread as it is. The two that used to carry code, and so were committed by
// a second Acceptor on the main thread's connection, are an idempotent v2 send (its stored
// answer) and an email with attachments (its content, written in the accept transaction).
it("commits idempotent sends and an email's attachments in the worker thread", async () => {
  const url = /"url":"(http:\/\/[^"]+)"/.exec(server!.output())![1]!;
  const key = demoKey(server!);
  const operatorKey = /Operator[\s\S]*?api key:\s+(\S+)/.exec(server!.output())![1]!;
  const idempotent = () =>
    fetch(`${url}/api/v2/sms/send`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}`, "idempotency-key": "threaded-1" },
      body: JSON.stringify({ sender_id: "SWBRD", recipient: "9876543299", message: DEMO_TEXT }),
    }).then(async (answer) => ({ status: answer.status, body: await answer.json() }));
  const first = await idempotent();
  expect(first.status).toBe(200);
  expect(await idempotent()).toEqual(first);

  const domain = await fetch(`${url}/admin/api/accounts/demo/email/domains`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${operatorKey}` },
    body: JSON.stringify({ domain: "threads.example", approve: true }),
  });
  expect(domain.status).toBe(201);
  const form = new FormData();
  for (const [name, value] of Object.entries({
    apikey: key,
    from: "news@threads.example",
    to: "one@example.org, two@example.org",
    subject: "Two threads",
    html: "<p>Hello</p>",
  }))
    form.append(name, value);
  form.append("attachment", new Blob([Buffer.from("a,b\n1,2\n")], { type: "text/csv" }), "table.csv");
  const email = await fetch(`${url}/httpemailapi/v1/send`, { method: "POST", body: form });
  const broadcastId = (await email.text()).trim();
  expect(broadcastId).toMatch(/^\d+_/);

  const raw = new BetterSqlite3(file, { readonly: true });
  try {
    const rows = raw
      .prepare(
        "select m.recipient, a.filename, a.data from messages m join email_attachments a on a.content_id = m.content_id where m.broadcast_id = ? order by m.recipient",
      )
      .all(broadcastId) as Array<{ recipient: string; filename: string; data: Buffer }>;
    expect(rows.map((r) => [r.recipient, r.filename, r.data.toString()])).toEqual([
      ["one@example.org", "table.csv", "a,b\n1,2\n"],
      ["two@example.org", "table.csv", "a,b\n1,2\n"],
    ]);
  } finally {
    raw.close();
  }
}, 60_000);
