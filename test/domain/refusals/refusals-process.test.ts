// The log of refusals in a real `switchboard start` on SQLite with its two threads: the main
// thread's refusals are written by the worker thread (the file's one writer), a refused send
// appears in GET /api/v2/refusals, and `switchboard refusals list` prints it (and --json, and a
// bad --from as a clear error). A stop writes what the buffer still holds.
import { afterAll, beforeAll, expect, it } from "vitest";
import { cliOk, demoKey, runCli, type ServerProcess, startServer } from "../../helpers/cli.js";
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
