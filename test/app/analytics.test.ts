// Delivery analytics (issue 38, item 2): real sends through the real server to the simulated
// carrier (some delivered, some failed with its codes, one still waiting), on a manual clock
// around midnight in India; then every grouping of GET /admin/api/analytics/delivery and
// GET /api/v2/analytics/delivery, over windows of whole UTC days and of ragged edges, is
// compared with a count of the messages table itself. Days of an IST account start at 18:30
// UTC. Percentiles fall within the latencies the messages had. Bad queries answer 400 naming
// the field; an account key on the operator's route 403.
import { beforeAll, expect, it } from "vitest";
import { ManualClock } from "../../src/base/core/clock.js";
import type { MessageRow } from "../../src/base/store/schema.js";
import { cliOk, runCli } from "../helpers/cli.js";
import { describeEachEngine } from "../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../helpers/gateway.js";
import { keyOf, sendSms } from "../helpers/sms.js";

const ROUTE_CODES: Record<string, string> = {
  transactional: "T",
  promotional: "P",
  promotional_sender: "PS",
  international: "I",
  voice: "V",
};
const GROUPS = ["account", "connector", "route", "prefix", "error_code", "hour", "day"] as const;
type Counts = { sent: number; delivered: number; failed: number; pending: number; rejected: number };

describeEachEngine("delivery analytics", (engine) => {
  // 23:50 in India on 28 November.
  const clock = new ManualClock("2026-11-28T18:20:00Z");
  const gateway = useTestGateway(engine, {
    clock,
    // The simulator fails numbers ending 0001 (UNDELIV) and refuses those ending 0002 (rejected).
    env: { SIMULATOR_LATENCY_MS: "1000", SIMULATOR_FAILURE_RATE: "0" },
  });
  let operator: TestAccount;
  let acme: TestAccount;
  let globex: TestAccount;
  const ZONE = "Asia/Kolkata";

  const admin = (t: TestGateway, query: string, key = operator.apiKey) =>
    call(t, "GET", `/admin/api/analytics/delivery?${query}`, { headers: { authorization: `Bearer ${key}` } });
  const own = (t: TestGateway, account: TestAccount, query: string) =>
    call(t, "GET", `/api/v2/analytics/delivery?${query}`, { headers: keyOf(account) });

  /** Waits until no message is in these states. */
  const none = async (t: TestGateway, states: Array<"queued" | "dispatching" | "submitted">) => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const waiting = await t.db.store.db.selectFrom("messages").select("id").where("status", "in", states).execute();
      if (waiting.length === 0) return;
      if (Date.now() > deadline) throw new Error(`${waiting.length} messages still waiting`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  /** Every message handed to the carrier, the clock moved on `ms`, and every report in. */
  const settle = async (t: TestGateway, ms: number) => {
    await none(t, ["queued", "dispatching"]);
    clock.advance(ms);
    await none(t, ["submitted"]);
  };

  const send = async (t: TestGateway, account: TestAccount, recipients: string[], route = "transactional") => {
    for (const recipient of recipients) {
      const answer = await sendSms(t, account, { sender_id: "SWBRD", recipient, message: "Your code is 1234", route });
      expect(answer.status, answer.text).toBe(200);
    }
  };

  beforeAll(async () => {
    const t = gateway();
    operator = await buildAccount(t, { role: "operator", sender: null });
    acme = await buildAccount(t);
    globex = await buildAccount(t);
    await t.db.store.db
      .updateTable("accounts")
      .set({ time_zone: ZONE })
      .where("id", "in", [operator.id, acme.id])
      .execute();
    // Their promotional sends come from their own sender ID SWBRD: promo sender (decision 0183).
    await t.db.store.db
      .updateTable("accounts")
      .set({ promo_sender_enabled: 1 })
      .where("id", "in", [acme.id, globex.id])
      .execute();
    // 23:50 IST on the 28th: delivered 3 s on.
    await send(t, acme, ["9876543210", "9812345678", "7012345678", "6000000001"]);
    await send(t, globex, ["9876500000", "8123450002"], "promotional");
    await settle(t, 3_000);
    // 00:10 IST on the 29th: delivered 12 s on.
    clock.set(new Date("2026-11-28T18:40:00Z"));
    await send(t, acme, ["9876543219", "7012340001", "9812345600", "9898989898", "8888880002"]);
    await send(t, globex, ["9700000001"], "promotional");
    await settle(t, 12_000);
    // 06:00 IST on the 29th, 00:30 UTC: a UTC day later.
    clock.set(new Date("2026-11-29T00:30:00Z"));
    await send(t, acme, ["9876543211", "9876543212", "7000000000"], "promotional");
    await send(t, globex, ["9811111111", "9822222222", "9833333333"]);
    await settle(t, 40_000);
    // One still waiting: scheduled for next year, so counted pending; one cancelled, counted nowhere.
    for (const recipient of ["9777777777", "9777777778"]) {
      const answer = await sendSms(t, acme, {
        sender_id: "SWBRD",
        recipient,
        message: "Your code is 1234",
        route: "transactional",
        schedule_at: "2027-11-29 06:00:00",
      });
      expect(answer.status, answer.text).toBe(200);
    }
    const [cancelled] = await t.db.store.db
      .selectFrom("messages")
      .select("id")
      .where("recipient", "=", "9777777778")
      .execute();
    const cancel = await call(t, "DELETE", `/api/v2/sms/schedule/${cancelled!.id}`, { headers: keyOf(acme) });
    expect(cancel.status, cancel.text).toBe(200);
  });

  /** The messages table counted directly: a window's messages grouped as asked. */
  const direct = async (
    t: TestGateway,
    accountId: number | undefined,
    from: number,
    to: number,
    groupBy: (typeof GROUPS)[number],
  ) => {
    let query = t.db.store.db
      .selectFrom("messages")
      .selectAll()
      .where("created_at", ">=", from)
      .where("created_at", "<", to);
    if (accountId !== undefined) query = query.where("account_id", "=", accountId);
    const rows = await query.execute();
    const names = new Map([operator, acme, globex].map((a) => [a.id, a.username]));
    const keyOf = (m: MessageRow): string | null => {
      switch (groupBy) {
        case "account":
          return names.get(Number(m.account_id)) ?? null;
        case "connector":
          return m.connector;
        case "route":
          return ROUTE_CODES[m.route] ?? m.route;
        case "prefix": {
          if (m.channel === "email") return null;
          const digits =
            m.route !== "international" && /^[6-9]\d{9}$/.test(m.recipient) ? `91${m.recipient}` : m.recipient;
          return digits.slice(0, 4);
        }
        case "error_code":
          return m.status === "failed" ? (m.error_code ?? "failed") : null;
        default: {
          const zone = groupBy === "hour" ? 3_600_000 : 86_400_000;
          // IST is UTC+5:30 all year.
          const offset = 330 * 60_000;
          return new Date(Math.floor((Number(m.created_at) + offset) / zone) * zone - offset).toISOString();
        }
      }
    };
    const counts = new Map<string | null, Counts>();
    for (const m of rows) {
      if (m.status === "cancelled") continue;
      const key = keyOf(m);
      const c = counts.get(key) ?? { sent: 0, delivered: 0, failed: 0, pending: 0, rejected: 0 };
      // Failed before a carrier carried it (the simulator's …0002, refunded): rejected, not sent.
      if (m.status === "failed" && m.submitted_at === null) {
        c.rejected += 1;
        counts.set(key, c);
        continue;
      }
      c.sent += 1;
      if (m.status === "delivered" || m.status === "read") c.delivered += 1;
      else if (m.status === "failed") c.failed += 1;
      else c.pending += 1;
      counts.set(key, c);
    }
    return counts;
  };

  const asCounts = (rows: Array<Counts & { key: string | null }>) =>
    new Map(
      rows.map((r) => [
        r.key,
        { sent: r.sent, delivered: r.delivered, failed: r.failed, pending: r.pending, rejected: r.rejected },
      ]),
    );

  it("counts what the messages table counts, for every grouping and window, on both routes", async () => {
    const t = gateway();
    const all = await t.db.store.db.selectFrom("messages").select(["status", "error_code"]).execute();
    expect(all).toHaveLength(20);
    expect(all.filter((m) => m.status === "delivered").length).toBeGreaterThan(0);
    expect(all.filter((m) => m.status === "failed").length).toBeGreaterThan(0);
    const windows: Array<[string, string]> = [
      // Whole UTC days: read from the day rows.
      ["2026-11-28T00:00:00Z", "2026-11-30T00:00:00Z"],
      // Ragged edges: widened to 18:15–18:45, read from 15-minute rows.
      ["2026-11-28T18:25:00Z", "2026-11-28T18:41:00Z"],
      // A day row in the middle and 15-minute rows either side.
      ["2026-11-27T12:00:00Z", "2026-11-29T00:45:00Z"],
    ];
    for (const [fromText, toText] of windows) {
      for (const groupBy of GROUPS) {
        const answer = await admin(t, `from=${fromText}&to=${toText}&group_by=${groupBy}`);
        expect(answer.status, answer.text).toBe(200);
        const { from, to } = answer.body.data;
        const expected = await direct(t, undefined, Date.parse(from), Date.parse(to), groupBy);
        expect(asCounts(answer.body.data.rows), `${fromText} ${groupBy}`).toEqual(expected);
        for (const row of answer.body.data.rows) {
          expect(row.delivery_rate).toBe(
            row.delivered + row.failed === 0
              ? null
              : Math.round((row.delivered / (row.delivered + row.failed)) * 1e4) / 1e4,
          );
        }
        if (groupBy === "account" || groupBy === "connector") continue;
        for (const account of [acme, globex]) {
          const mine = await own(t, account, `from=${fromText}&to=${toText}&group_by=${groupBy}`);
          expect(mine.status, mine.text).toBe(200);
          expect(asCounts(mine.body.data.rows), `${account.username} ${fromText} ${groupBy}`).toEqual(
            await direct(t, account.id, Date.parse(from), Date.parse(to), groupBy),
          );
        }
      }
    }
  });

  it("counts a refusal at submit as rejected, not as sent and failed: the rate is over messages carried (audit F9)", async () => {
    const t = gateway();
    const refused = await t.db.store.db
      .selectFrom("messages")
      .select(["recipient", "status", "submitted_at", "connector", "error_code"])
      .where("recipient", "like", "%0002")
      .execute();
    expect(refused).toHaveLength(2);
    for (const m of refused) expect(m).toMatchObject({ status: "failed", submitted_at: null, connector: "simulator" });
    const answer = await admin(t, "from=2026-11-28&to=2026-11-30&group_by=connector");
    const row = answer.body.data.rows.find((r: { key: string }) => r.key === "simulator");
    const carried = await t.db.store.db
      .selectFrom("messages")
      .select(["status"])
      .where("connector", "=", "simulator")
      .where("submitted_at", "is not", null)
      .execute();
    const delivered = carried.filter((m) => m.status === "delivered").length;
    const failed = carried.filter((m) => m.status === "failed").length;
    expect(row).toMatchObject({ sent: carried.length, delivered, failed, rejected: 2 });
    expect(row.delivery_rate).toBe(Math.round((delivered / (delivered + failed)) * 1e4) / 1e4);
    // The refusal's code is in the error breakdown, as a rejection only.
    const errors = await admin(t, "from=2026-11-28&to=2026-11-30&group_by=error_code");
    const code = refused[0]!.error_code;
    expect(errors.body.data.rows.find((r: { key: string }) => r.key === code)).toMatchObject({
      sent: 0,
      failed: 0,
      rejected: 2,
      delivery_rate: null,
    });
  });

  it("names an IST account's days by their start, 18:30 UTC the day before", async () => {
    const t = gateway();
    const answer = await own(t, acme, "from=2026-11-28&to=2026-11-29&group_by=day");
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.data).toMatchObject({
      from: "2026-11-27T18:30:00.000Z",
      to: "2026-11-29T18:30:00.000Z",
      group_by: "day",
      time_zone: ZONE,
    });
    // 28th IST: the four sent at 23:50; 29th: four of the five at 00:10 (one refused at submit),
    // three at 06:00 and the one waiting.
    expect(answer.body.data.rows.map((r: { key: string; sent: number }) => [r.key, r.sent])).toEqual([
      ["2026-11-27T18:30:00.000Z", 4],
      ["2026-11-28T18:30:00.000Z", 8],
    ]);
    expect(answer.body.data.rows[1].rejected).toBe(1);
    expect(answer.body.data.rows[1].pending).toBe(1);
    const hours = await own(t, acme, "from=2026-11-28T23:00&to=2026-11-29T01:00&group_by=hour");
    expect(hours.body.data.rows.map((r: { key: string; sent: number }) => [r.key, r.sent])).toEqual([
      ["2026-11-28T17:30:00.000Z", 4],
      ["2026-11-28T18:30:00.000Z", 4],
    ]);
  });

  it("reads latency percentiles within the latencies the messages had", async () => {
    const t = gateway();
    const delivered = await t.db.store.db
      .selectFrom("messages")
      .select(["created_at", "done_at"])
      .where("status", "=", "delivered")
      .execute();
    const latencies = delivered.map((m) => Number(m.done_at) - Number(m.created_at)).sort((a, b) => a - b);
    const answer = await admin(t, "from=2026-11-28&to=2026-11-30&group_by=route");
    const rows = answer.body.data.rows as Array<{ key: string; latency_p50_ms: number; latency_p95_ms: number }>;
    const lowest = latencies[0] ?? 0;
    const highest = latencies[latencies.length - 1] ?? 0;
    for (const row of rows) {
      if (row.latency_p50_ms === null) continue;
      // Buckets are √2 wide: a percentile is within a factor √2 of a latency that occurred.
      expect(row.latency_p50_ms).toBeGreaterThanOrEqual(lowest / Math.SQRT2);
      expect(row.latency_p95_ms).toBeLessThanOrEqual(highest * Math.SQRT2);
      expect(row.latency_p95_ms).toBeGreaterThanOrEqual(row.latency_p50_ms);
    }
    // Each account's percentiles within a bucket's width (√2) of the exact ones (nearest rank).
    const total = await admin(t, "from=2026-11-28&to=2026-11-30&group_by=account");
    for (const account of [acme, globex]) {
      const mine = await t.db.store.db
        .selectFrom("messages")
        .select(["created_at", "done_at"])
        .where("status", "=", "delivered")
        .where("account_id", "=", account.id)
        .execute();
      const sorted = mine.map((m) => Number(m.done_at) - Number(m.created_at)).sort((a, b) => a - b);
      const exact = (p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? 0;
      const row = total.body.data.rows.find((r: { key: string }) => r.key === account.username);
      for (const [p, field] of [
        [0.5, "latency_p50_ms"],
        [0.95, "latency_p95_ms"],
      ] as const) {
        expect(row[field], `${account.username} ${field}`).toBeGreaterThanOrEqual(exact(p) / Math.SQRT2);
        expect(row[field], `${account.username} ${field}`).toBeLessThanOrEqual(exact(p) * Math.SQRT2);
      }
    }
  });

  it("answers the same through the CLI: switchboard analytics delivery", async () => {
    const t = gateway();
    const env = { DATABASE_URL: t.db.url, SQLITE_SYNCHRONOUS: "NORMAL" };
    const window = ["--from", "2026-11-28T00:00:00Z", "--to", "2026-11-30T00:00:00Z"];
    const api = await admin(t, "from=2026-11-28T00:00:00Z&to=2026-11-30T00:00:00Z&group_by=error_code");
    const json = JSON.parse(
      await cliOk(["analytics", "delivery", ...window, "--group-by", "error_code", "--json"], env),
    );
    expect(json.data.rows).toEqual(api.body.data.rows);
    const mine = JSON.parse(
      await cliOk(
        [
          "analytics",
          "delivery",
          ...window,
          "--group-by",
          "day",
          "--account",
          acme.username,
          "--time-zone",
          ZONE,
          "--json",
        ],
        env,
      ),
    );
    expect(mine.data.rows).toEqual(
      (await own(t, acme, "from=2026-11-28T00:00:00Z&to=2026-11-30T00:00:00Z")).body.data.rows,
    );
    const text = await cliOk(["analytics", "delivery", ...window, "--group-by", "error_code"], env);
    expect(text.split("\n")[1]).toMatch(
      /^ERROR_CODE\s+SENT\s+DELIVERED\s+FAILED\s+PENDING\s+REJECTED\s+RATE\s+P50\s+P95$/,
    );
    expect(text).toMatch(/UNDELIV\s+\d+\s+0\s+\d+\s+0\s+0\s+0\.0 %/);
    // Bad input: a clear message naming the option, a failing exit, never a stack.
    for (const [args, said] of [
      [["--group-by", "week"], /group_by/],
      [["--from", "yesterday"], /from/],
      [["--time-zone", "Mars/Olympus"], /time zone/],
    ] as const) {
      const refused = await runCli(["analytics", "delivery", ...args], env);
      expect(refused.code, refused.stderr).not.toBe(0);
      expect(refused.stderr).toMatch(said);
      expect(refused.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it("takes the CLI's filters on the operator's route: one account, and the zone to read in (audit row 13)", async () => {
    const t = gateway();
    const env = { DATABASE_URL: t.db.url, SQLITE_SYNCHRONOUS: "NORMAL" };
    const window = "from=2026-11-28T00:00:00&to=2026-11-30T00:00:00";
    for (const groupBy of ["account", "connector", "day"]) {
      const answer = await admin(t, `${window}&group_by=${groupBy}&account=${acme.username}&time_zone=UTC`);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.data).toMatchObject({ time_zone: "UTC", from: "2026-11-28T00:00:00.000Z" });
      const cli = JSON.parse(
        await cliOk(
          ["analytics", "delivery", "--from", "2026-11-28T00:00:00", "--to", "2026-11-30T00:00:00"].concat([
            "--group-by",
            groupBy,
            "--account",
            acme.username,
            "--json",
          ]),
          env,
        ),
      );
      expect(answer.body.data, groupBy).toEqual(cli.data);
      if (groupBy === "day") {
        // Days of UTC, not of the operator's India.
        expect(answer.body.data.rows.map((row: { key: string }) => row.key)).toEqual([
          "2026-11-28T00:00:00.000Z",
          "2026-11-29T00:00:00.000Z",
        ]);
        continue;
      }
      const { from, to } = answer.body.data;
      expect(asCounts(answer.body.data.rows), groupBy).toEqual(
        await direct(t, acme.id, Date.parse(from), Date.parse(to), groupBy as (typeof GROUPS)[number]),
      );
    }
    const unknown = await admin(t, "account=nobody-here");
    expect(unknown.status).toBe(404);
    const zone = await admin(t, "time_zone=Mars/Olympus");
    expect(zone.status).toBe(400);
    expect(zone.body.error).toMatchObject({ code: "invalid_request", field: "time_zone" });
  });

  it("refuses bad queries naming the field, and an account key on the operator's route", async () => {
    const t = gateway();
    const cases: Array<[string, string]> = [
      ["group_by=connector", "group_by"],
      ["group_by=account", "group_by"],
      ["group_by=week", "group_by"],
      ["from=yesterday", "from"],
      ["from=2026-11-29&to=2026-11-28", "to"],
      ["from=2020-01-01&to=2026-11-28", "from"],
    ];
    for (const [query, field] of cases) {
      const answer = await own(t, acme, query);
      expect(answer.status, `${query}: ${answer.text}`).toBe(400);
      expect(answer.body.error, query).toMatchObject({ code: "invalid_request", field });
    }
    const bad = await admin(t, "group_by=week");
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "invalid_request", field: "group_by" });
    expect((await admin(t, "group_by=connector&colour=red")).status).toBe(400);
    const refused = await admin(t, "group_by=account", acme.apiKey);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("operator_only");
  });
});
