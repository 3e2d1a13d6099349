// The log of refusals in a real `switchboard start` on SQLite with its two threads: the main
// thread's refusals are written by the worker thread (the file's one writer), a refused send
// appears in GET /api/v2/refusals, and `switchboard refusals list` prints it (and --json, and a
// bad --from as a clear error). A stop writes what the buffer still holds. A sub-account's send
// refused because its parent is short keeps, across the threads, which level was short (decision
// 0158): the operator reads it.
import { afterAll, beforeAll, expect, it } from "vitest";
import { cliOk, DEMO_TEXT, demoKey, runCli, type ServerProcess, startServer } from "../../helpers/cli.js";
import { createTestDatabase, type TestDatabase } from "../../helpers/engines.js";

let db: TestDatabase;
let server: ServerProcess | undefined;
let env: Record<string, string>;

beforeAll(async () => {
  db = await createTestDatabase("sqlite");
  env = { DATABASE_URL: db.url, SQLITE_SYNCHRONOUS: "NORMAL", SWITCHBOARD_THREADS: "2" };
  server = await startServer("start", env, { timeoutMs: 60_000 });
}, 90_000);

afterAll(async () => {
  await server?.stop();
  await db?.drop();
});

it("keeps which parent was short when the worker thread refuses a sub-account's send", async () => {
  const operator = /Operator[\s\S]*?api key:\s+(\S+)/.exec(server!.output())?.[1];
  const call = async (key: string, method: string, path: string, body?: unknown) => {
    const answer = await fetch(`${server!.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: answer.status, body: (await answer.json()) as { data: Record<string, unknown> } };
  };
  const demo = demoKey(server!);
  const sub = "demo-short";
  expect(
    (await call(demo, "POST", "/api/v2/subaccounts", { username: sub, password: "short-password-1" })).status,
  ).toBe(201);
  const subKey = (await call(demo, "POST", `/api/v2/subaccounts/${sub}/keys`)).body.data.api_key as string;
  await call(demo, "POST", `/api/v2/subaccounts/${sub}/credits`, { wallet: "sms", amount: 10 });
  // The sub-account may send the demo text as its parent does.
  await call(operator!, "POST", `/admin/api/accounts/${sub}/sender-ids`, { sender: "SWBRD", approve: true });
  await call(operator!, "POST", `/admin/api/accounts/${sub}/dlt/entities`, { entity_id: "1101160000000000001" });
  await call(operator!, "POST", `/admin/api/accounts/${sub}/templates`, {
    name: "otp",
    content: "Your OTP is {#var#}. Do not share it with anyone.",
    dlt_template_id: "1107160000000000001",
    approve: true,
  });
  const balance = (await call(demo, "GET", "/api/v2/balance")).body.data.wallets as { sms: number };
  await call(operator!, "POST", "/admin/api/accounts/demo/credits/adjust", {
    wallet: "sms",
    amount: -balance.sms,
    reason: "the parent is short",
  });

  const refused = await call(subKey, "POST", "/api/v2/sms/send", {
    sender_id: "SWBRD",
    recipient: "9876543210",
    message: DEMO_TEXT,
  });
  expect(refused.status).toBe(402);
  expect(refused.body).toMatchObject({ message: "Credit not available." });
  const why = "Credit not available at the parent account demo: its sms wallet holds 0, the send needs 1.";
  let reasons: string[] = [];
  const deadline = Date.now() + 20_000;
  while (reasons.length === 0) {
    if (Date.now() > deadline) throw new Error("the refusal never appeared");
    await new Promise((resolve) => setTimeout(resolve, 50));
    const page = await call(operator!, "GET", `/admin/api/refusals?account=${sub}`);
    reasons = (page.body.data as unknown as Array<{ reason: string }>).map((row) => row.reason);
  }
  expect(reasons).toEqual([why]);
}, 60_000);

it("writes the refusals through the worker thread and lists them from the CLI", async () => {
  const key = demoKey(server!);
  const refuse = async (message: string) => {
    const answer = await fetch(`${server!.url}/api/v2/sms/send`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ sender_id: "SWBRD", recipient: "98765", message }),
    });
    expect(answer.status).toBe(422);
  };
  await refuse("first refused");
  let rows: Array<{ text: string; answer: string }> = [];
  const deadline = Date.now() + 20_000;
  while (rows.length === 0) {
    if (Date.now() > deadline) throw new Error("the refusal never appeared");
    await new Promise((resolve) => setTimeout(resolve, 50));
    const page = await fetch(`${server!.url}/api/v2/refusals`, { headers: { authorization: `Bearer ${key}` } });
    rows = ((await page.json()) as { data: typeof rows }).data;
  }
  expect(rows).toEqual([expect.objectContaining({ text: "first refused", answer: "422 invalid_recipient" })]);

  // Refused just before the stop: the stop writes the buffer before the worker thread ends.
  await refuse("refused before the stop");
  expect(await server!.stop()).toBe(0);
  server = undefined;

  const listed = await cliOk(["refusals", "list", "--account", "demo"], env);
  expect(listed).toMatch(/^AT\s+ACCOUNT\s+FAMILY\s+OPERATION\s+RECIPIENTS\s+ANSWER\s+REASON/);
  expect(listed).toContain("POST /api/v2/sms/send");
  expect(listed.trim().split("\n")).toHaveLength(3);
  const json = JSON.parse(await cliOk(["refusals", "list", "--code", "invalid_recipient", "--json"], env));
  expect(json.data.map((row: { text: string; account: string }) => [row.account, row.text])).toEqual([
    ["demo", "refused before the stop"],
    ["demo", "first refused"],
  ]);
  const bad = await runCli(["refusals", "list", "--from", "someday"], env);
  expect(bad.code).not.toBe(0);
  expect(bad.stderr).toContain('Query parameter "from" must be an ISO 8601 date');
}, 90_000);
