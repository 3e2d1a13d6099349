// The operator's support desk (issue 38): GET /admin/api/messages lists every account's messages
// newest first with the v2 list's filters and the operator's own (account, connector, error_code,
// route), each row the status answer and its account; GET /admin/api/messages/{id} reads one by
// queue id or carrier id with its timeline; `switchboard messages list|show` answer the same. An
// account key is refused. Rows are stored directly, so their connectors, codes and times are known.
import { beforeAll, expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { cliOk, runCli } from "../../helpers/cli.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { messageRow } from "../../helpers/message-row.js";
import { keyOf, sendSms } from "../../helpers/sms.js";

describeEachEngine("the operator's messages", (engine) => {
  const clock = new ManualClock("2026-11-22T06:30:00Z");
  const gateway = useTestGateway(engine, { clock, env: { SIMULATOR_LATENCY_MS: "600000" } });
  let operator: TestAccount;
  let acme: TestAccount;
  let globex: TestAccount;
  const at = Date.parse("2026-11-20T10:00:00Z");

  const admin = (t: TestGateway, path: string) =>
    call(t, "GET", `/admin/api${path}`, { headers: { authorization: `Bearer ${operator.apiKey}` } });
  const ids = (body: { data: Array<{ message_id: string }> }) => body.data.map((row) => row.message_id);

  beforeAll(async () => {
    const t = gateway();
    operator = await buildAccount(t, { role: "operator", sender: null });
    acme = await buildAccount(t);
    globex = await buildAccount(t);
    const row = (n: number, account: TestAccount, changes: Parameters<typeof messageRow>[0]) =>
      messageRow({ account_id: account.id, created_at: at + n * 60_000, ...changes });
    await t.db.store.transaction((trx) =>
      t.db.store.insertMany(trx, "messages", [
        row(0, acme, {
          id: "q01ACME0000000000000000000A",
          status: "delivered",
          connector: "smsc-a",
          upstream_id: "A-1",
        }),
        row(1, globex, {
          id: "q01GBEX0000000000000000000A",
          status: "failed",
          connector: "smsc-b",
          upstream_id: "B-7",
          error_code: "UNDELIV",
          error_message: "Undeliverable",
          done_at: at + 90_000,
        }),
        row(2, acme, {
          id: "q01ACME0000000000000000000B",
          status: "failed",
          connector: "smsc-a",
          error_code: "dlt_template_mismatch",
          route: "promotional",
          done_at: at + 150_000,
        }),
        row(3, globex, {
          id: "q01GBEX0000000000000000000B",
          channel: "email",
          route: "email",
          recipient: "a@b.example",
        }),
      ]),
    );
  });

  it("lists every account's messages newest first, each row the status answer with its account", async () => {
    const t = gateway();
    const answer = await admin(t, `/messages?from=2026-11-20T00:00:00Z&to=2026-11-21T00:00:00Z`);
    expect(answer.status, answer.text).toBe(200);
    expect(ids(answer.body)).toEqual([
      "q01GBEX0000000000000000000B",
      "q01ACME0000000000000000000B",
      "q01GBEX0000000000000000000A",
      "q01ACME0000000000000000000A",
    ]);
    expect(answer.body.data[2]).toMatchObject({
      account: globex.username,
      status: "failed",
      vendor_message_id: "B-7",
      error: { code: "UNDELIV" },
    });
    expect(answer.body.meta).toEqual({ limit: 50, next_cursor: null });
  });

  it("filters by account, connector, error code, route, channel and status, and pages with a cursor", async () => {
    const t = gateway();
    const day = "from=2026-11-20T00:00:00Z&to=2026-11-21T00:00:00Z";
    const cases: Array<[string, string[]]> = [
      [`account=${acme.username}`, ["q01ACME0000000000000000000B", "q01ACME0000000000000000000A"]],
      ["connector=smsc-b", ["q01GBEX0000000000000000000A"]],
      ["error_code=dlt_template_mismatch,UNDELIV", ["q01ACME0000000000000000000B", "q01GBEX0000000000000000000A"]],
      ["route=P", ["q01ACME0000000000000000000B"]],
      ["route=email", ["q01GBEX0000000000000000000B"]],
      ["channel=sms&status=failed", ["q01ACME0000000000000000000B", "q01GBEX0000000000000000000A"]],
      [`account=${globex.username}&connector=smsc-a`, []],
    ];
    for (const [query, expected] of cases) {
      const answer = await admin(t, `/messages?${day}&${query}`);
      expect(answer.status, `${query}: ${answer.text}`).toBe(200);
      expect(ids(answer.body), query).toEqual(expected);
    }
    // Two at a time, neither repeating nor skipping a row; per_page is the limit's other name.
    const first = await admin(t, `/messages?${day}&per_page=2`);
    const second = await admin(t, `/messages?${day}&per_page=2&cursor=${first.body.meta.next_cursor}`);
    expect([...ids(first.body), ...ids(second.body)]).toHaveLength(4);
    expect(new Set([...ids(first.body), ...ids(second.body)]).size).toBe(4);
  });

  it("refuses what it cannot read in words, an unknown account with 404, and an account's key", async () => {
    const t = gateway();
    const bad: Array<[string, string]> = [
      ["route=X", "route"],
      ["colour=blue", "colour"],
      ["cursor=nope", "cursor"],
      ["limit=501", "limit"],
    ];
    for (const [query, field] of bad) {
      const answer = await admin(t, `/messages?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body.error, query).toMatchObject({ code: "invalid_request", field });
    }
    expect((await admin(t, "/messages?account=nobody-here")).status).toBe(404);
    const refused = await call(t, "GET", "/admin/api/messages", { headers: keyOf(acme) });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("operator_only");
  });

  it("reads one message of any account by its queue id or the carrier's id, with its timeline", async () => {
    const t = gateway();
    const sent = await sendSms(t, acme, { sender_id: "SWBRD", recipient: "9876543210", message: "hello" });
    expect(sent.status, sent.text).toBe(200);
    const id = sent.body.data.message_id as string;
    // Submitted, it stays so: the simulated carrier reports 10 minutes later on a clock that stands.
    const own = async () => call(t, "GET", `/api/v2/messages/${id}`, { headers: keyOf(acme) });
    const deadline = Date.now() + 10_000;
    while ((await own()).body.data.message.status !== "submitted" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const detail = await admin(t, `/messages/${id}`);
    expect(detail.status, detail.text).toBe(200);
    expect(detail.body.data).toMatchObject({
      account: acme.username,
      message: { message_id: id, status: "submitted" },
      cost: { credits: 1, wallet: "sms", refunded: false },
    });
    expect(detail.body.data.timeline.map((event: { event: string }) => event.event)).toEqual(["accepted", "submitted"]);
    // The account's own view of it is the same, but for the account's name and the operator's facts.
    const { body: ownBody } = await own();
    const { account, dlt: _dlt, charges: _charges, ...rest } = detail.body.data;
    expect(account).toBe(acme.username);
    expect(rest).toEqual(ownBody.data);

    const byCarrier = await admin(t, "/messages/B-7");
    expect(byCarrier.body.data).toMatchObject({
      account: globex.username,
      message: { message_id: "q01GBEX0000000000000000000A" },
    });
    expect((await admin(t, "/messages/q00000000000000000000000000")).status).toBe(404);
  });

  it("answers the same through the CLI: messages list and messages show", async () => {
    const t = gateway();
    const env = { DATABASE_URL: t.db.url, SQLITE_SYNCHRONOUS: "NORMAL" };
    const listed = await cliOk(
      ["messages", "list", "--from", "2026-11-20", "--to", "2026-11-21", "--error-code", "UNDELIV"],
      env,
    );
    expect(listed.split("\n")[0]).toMatch(/^ACCEPTED\s+ACCOUNT\s+MESSAGE\s+CHANNEL\s+RECIPIENT\s+STATUS\s+ERROR$/);
    expect(listed).toMatch(
      new RegExp(`${globex.username}\\s+q01GBEX0000000000000000000A\\s+sms\\s+9876543210\\s+failed\\s+UNDELIV`),
    );
    const json = JSON.parse(
      await cliOk(
        ["messages", "list", "--account", acme.username, "--from", "2026-11-20", "--to", "2026-11-21", "--json"],
        env,
      ),
    );
    expect(ids(json)).toEqual(["q01ACME0000000000000000000B", "q01ACME0000000000000000000A"]);
    const shown = await cliOk(["messages", "show", "q01GBEX0000000000000000000A"], env);
    expect(shown).toContain(`account ${globex.username}`);
    expect(shown).toMatch(/status\s+failed \(UNDELIV: Undeliverable\)/);
    expect(shown).toMatch(/^AT\s+EVENT\s+DETAIL$/m);
  });

  it("matches error_code in any case, as status is, on the API and the CLI (audit row 11)", async () => {
    const t = gateway();
    const day = "from=2026-11-20T00:00:00Z&to=2026-11-21T00:00:00Z";
    for (const [query, expected] of [
      ["error_code=undeliv", ["q01GBEX0000000000000000000A"]],
      ["error_code=Dlt_Template_Mismatch,uNDELIV", ["q01ACME0000000000000000000B", "q01GBEX0000000000000000000A"]],
    ] as const) {
      const answer = await admin(t, `/messages?${day}&${query}`);
      expect(answer.status, answer.text).toBe(200);
      expect(ids(answer.body), query).toEqual(expected);
    }
    const env = { DATABASE_URL: t.db.url, SQLITE_SYNCHRONOUS: "NORMAL" };
    const listed = await cliOk(
      ["messages", "list", "--from", "2026-11-20", "--to", "2026-11-21", "--error-code", "undeliv"],
      env,
    );
    expect(listed).toContain("q01GBEX0000000000000000000A");
  });

  it("refuses a repeated query parameter naming it, not as 'must be string' (audit row 19)", async () => {
    const t = gateway();
    for (const [query, field] of [
      ["limit=1&limit=2", "limit"],
      ["account=a&account=b", "account"],
      ["error_code=X&error_code=Y", "error_code"],
    ] as const) {
      const answer = await admin(t, `/messages?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body.error, query).toMatchObject({ code: "invalid_request", field });
      expect(answer.body.message, query).toBe(`Query parameter "${field}" is given more than once; give it once.`);
    }
  });

  it("reads the CLI's --from and --to in --time-zone, else the --account's zone, else UTC, and says so (audit row 12)", async () => {
    const t = gateway();
    const env = { DATABASE_URL: t.db.url, SQLITE_SYNCHRONOUS: "NORMAL" };
    await t.db.store.db.updateTable("accounts").set({ time_zone: "Asia/Kolkata" }).where("id", "=", acme.id).execute();
    const list = async (...args: string[]) =>
      ids(JSON.parse(await cliOk(["messages", "list", ...args, "--json"], env)));
    // acme's first message was accepted at 10:00 UTC, 15:30 in India; globex's at 10:01 UTC.
    expect(await list("--account", acme.username, "--from", "2026-11-20T15:30", "--to", "2026-11-20T15:31")).toEqual([
      "q01ACME0000000000000000000A",
    ]);
    expect(
      await list(
        "--account",
        acme.username,
        "--time-zone",
        "UTC",
        "--from",
        "2026-11-20T10:02",
        "--to",
        "2026-11-20T10:03",
      ),
    ).toEqual(["q01ACME0000000000000000000B"]);
    expect(await list("--from", "2026-11-20T10:01", "--to", "2026-11-20T10:02")).toEqual([
      "q01GBEX0000000000000000000A",
    ]);
    expect(await list("--time-zone", "Asia/Kolkata", "--from", "2026-11-20T15:31", "--to", "2026-11-20T15:32")).toEqual(
      ["q01GBEX0000000000000000000A"],
    );
    const bad = await runCli(["messages", "list", "--account", acme.username, "--from", "yesterday"], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("--from must be an ISO 8601 date or date-time");
    expect(bad.stderr).toContain(`read in Asia/Kolkata, ${acme.username}'s zone; --time-zone changes it`);
    expect(bad.stderr).not.toMatch(/Query parameter|your account's time zone/);
    const backwards = await runCli(["messages", "list", "--from", "2026-11-21", "--to", "2026-11-20"], env);
    expect(backwards.stderr).toContain("--to must be after --from.");
    const zone = await runCli(["messages", "export", "--time-zone", "Mars/Olympus"], env);
    expect(zone.code).not.toBe(0);
    expect(zone.stderr).toMatch(/IANA time zone/);
  });
});
