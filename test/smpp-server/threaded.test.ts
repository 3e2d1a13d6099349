// The SMPP server of a real `switchboard start` on SQLite with its two threads: the main thread
// holds the SMPP sockets and hands its writes to smpp_outbox (claim, retry, delete) to the worker
// thread, the one writer of the file. Twenty submits with registered_delivery each get their
// receipt, the first after the client refused it once; the outbox is empty afterwards.
import BetterSqlite3 from "better-sqlite3";
import { afterAll, beforeAll, expect, it } from "vitest";
import { cliOk, type ServerProcess, startServer } from "../helpers/cli.js";
import { createTestDatabase, type TestDatabase } from "../helpers/engines.js";
import { freePort } from "../helpers/throwaway.js";
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
