// Exports (issue 38): GET /api/v2/messages/export and the operator's /admin/api/messages/export
// write every message the list's filters match as CSV (a header row, RFC 4180 quoting, text that
// a spreadsheet would run as a formula behind an apostrophe, numbers left numbers) or JSON Lines;
// the ledger likewise (/api/v2/credits/export, /admin/api/accounts/{username}/ledger/export);
// `switchboard messages export` writes the operator's. Rows are stored directly so that their
// text can hold what a spreadsheet or a CSV reader trips over.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { beforeAll, expect, it } from "vitest";
import { cliOk } from "../../helpers/cli.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { messageRow } from "../../helpers/message-row.js";
import { keyOf } from "../../helpers/sms.js";

const COLUMNS = [
  "message_id",
  "broadcast_id",
  "mobile",
  "status",
  "delivery_time",
  "sent_time",
  "sender_id",
  "credit",
  "route",
  "segments",
  "encoding",
  "vendor_message_id",
  "created_at",
  "channel",
  "message",
  "scheduled_at",
  "error_code",
  "error_message",
];

describeEachEngine("message and ledger exports", (engine) => {
  const gateway = useTestGateway(engine, { env: { SIMULATOR_LATENCY_MS: "600000" } });
  let operator: TestAccount;
  let acme: TestAccount;
  let other: TestAccount;
  const at = Date.parse("2026-11-20T10:00:00Z");
  const texts = [
    'Plain, with a comma and "quotes"',
    "two\nlines",
    '=HYPERLINK("http://evil.example","click")',
    "+91 is India",
    "-5 off",
    "@home",
    "\n=1+1",
  ];

  const get = (t: TestGateway, url: string, account: TestAccount) =>
    fetch(`${t.url}${url}`, { headers: { authorization: `Bearer ${account.apiKey}` } });

  beforeAll(async () => {
    const t = gateway();
    operator = await buildAccount(t, { role: "operator", sender: null });
    acme = await buildAccount(t, { credits: { sms: 10 } });
    other = await buildAccount(t);
    const rows = texts.map((body, i) =>
      messageRow({
        id: `q01EXP${String(i).padStart(20, "0")}`,
        account_id: acme.id,
        body,
        created_at: at + i * 1000,
        status: i === 1 ? "failed" : "delivered",
        ...(i === 1 ? { error_code: "UNDELIV", error_message: "Undeliverable, said the carrier" } : {}),
      }),
    );
    rows.push(messageRow({ id: "q01EXPOTHER000000000000000", account_id: other.id, created_at: at }));
    await t.db.store.transaction((trx) => t.db.store.insertMany(trx, "messages", rows));
  });

  it("writes the account's messages as CSV: header, RFC 4180 quoting, formula-safe text", async () => {
    const t = gateway();
    const answer = await get(t, "/api/v2/messages/export?from=2026-11-20&to=2026-11-21", acme);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(answer.headers.get("content-disposition")).toBe('attachment; filename="messages.csv"');
    const text = await answer.text();
    expect(text.split("\n")[0]).toBe(COLUMNS.join(","));
    const records = parse(text, { columns: true }) as Array<Record<string, string>>;
    // Newest first, only this account's.
    expect(records.map((r) => r.message)).toEqual([
      "'\n=1+1",
      "'@home",
      "'-5 off",
      "'+91 is India",
      '\'=HYPERLINK("http://evil.example","click")',
      "two\nlines",
      'Plain, with a comma and "quotes"',
    ]);
    expect(
      records.every((r) => r.message_id?.startsWith("q01EXP") && r.message_id !== "q01EXPOTHER000000000000000"),
    ).toBe(true);
    const failed = records.find((r) => r.status === "failed")!;
    expect(failed).toMatchObject({
      error_code: "UNDELIV",
      error_message: "Undeliverable, said the carrier",
      credit: "1",
    });
    // Filters are the list's: only the failed one.
    const only = await (await get(t, "/api/v2/messages/export?status=failed&from=2026-11-20", acme)).text();
    expect((parse(only, { columns: true }) as unknown[]).length).toBe(1);
  });

  it("writes JSON Lines as the list's rows, and refuses an unknown format or parameter", async () => {
    const t = gateway();
    const lines = (await (await get(t, "/api/v2/messages/export?format=jsonl&from=2026-11-20", acme)).text())
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    const listed = await call(t, "GET", "/api/v2/messages?from=2026-11-20&limit=100", { headers: keyOf(acme) });
    expect(lines).toEqual(listed.body.data);
    const bad = await call(t, "GET", "/api/v2/messages/export?format=xlsx", { headers: keyOf(acme) });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "invalid_request", field: "format" });
    expect((await call(t, "GET", "/api/v2/messages/export?limit=5", { headers: keyOf(acme) })).status).toBe(400);
  });

  it("gives the operator every account's, each row with its account, from the API and the CLI", async () => {
    const t = gateway();
    const text = await (await get(t, "/admin/api/messages/export?from=2026-11-20&to=2026-11-21", operator)).text();
    const records = parse(text, { columns: true }) as Array<Record<string, string>>;
    expect(text.split("\n")[0]).toBe(["account", ...COLUMNS].join(","));
    const accounts = new Set(records.map((r) => r.account));
    expect(accounts).toEqual(new Set([acme.username, other.username]));
    expect((await get(t, "/admin/api/messages/export", acme)).status).toBe(403);

    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-export-")), "acme.jsonl");
    const env = { DATABASE_URL: t.db.url, SQLITE_SYNCHRONOUS: "NORMAL" };
    await cliOk(
      ["messages", "export", "--json", "--account", acme.username, "--from", "2026-11-20", "--output", file],
      env,
    );
    const exported = fs
      .readFileSync(file, "utf8")
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(exported).toHaveLength(texts.length);
    expect(exported[0]).toMatchObject({ account: acme.username, message: "\n=1+1" });
    const stdout = await cliOk(["messages", "export", "--account", other.username, "--from", "2026-11-20"], env);
    expect(parse(stdout, { columns: true })).toEqual([
      expect.objectContaining({ account: other.username, message_id: "q01EXPOTHER000000000000000" }),
    ]);
  });

  it("exports the ledger with negative amounts as numbers, for the account and the operator", async () => {
    const t = gateway();
    const spent = await call(t, "POST", "/api/v2/sms/send", {
      headers: keyOf(acme),
      json: { sender_id: "SWBRD", recipient: "9876543210", message: "hello" },
    });
    expect(spent.status, spent.text).toBe(200);
    const text = await (await get(t, "/api/v2/credits/export", acme)).text();
    expect(text.split("\n")[0]).toBe("id,wallet,amount,balance_after,kind,ref,charged_ref,note,created_at");
    const records = parse(text, { columns: true }) as Array<Record<string, string>>;
    expect(records.map((r) => [r.wallet, r.kind, r.amount, r.balance_after])).toEqual([
      ["sms", "topup", "10", "10"],
      ["sms", "debit", "-1", "9"],
    ]);
    const operators = await (
      await get(t, `/admin/api/accounts/${acme.username}/ledger/export?format=jsonl`, operator)
    ).text();
    expect(
      operators
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line).amount),
    ).toEqual([10, -1]);
  });
});
