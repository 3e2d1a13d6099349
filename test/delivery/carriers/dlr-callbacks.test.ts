// What an outsider can do with the http-sms delivery-report URL (issue 36), through the real
// server on both engines: names of no connector cost no memory; every field a report stores is
// bounded at the door; a report the database refuses fails no other; a connector keeps a bounded
// number of reports for ids no message carries (processes keeping them at once each count what
// they dropped, wait for none of the others and never deadlock with one applying a kept report),
// and retrying them costs a bounded amount of work;
// a report that came before its message was due is never applied to it.
import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Clock } from "../../../src/base/core/clock.js";
import { type DeliveryReport, forgetEarlyReports, keepEarlyReports } from "../../../src/domain/messages/index.js";
import { until } from "../../domain/webhooks/receiver.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { MiB, settledHeap } from "../../helpers/heap.js";
import { keepsAtOnce } from "../../helpers/keeps-at-once.js";
import { RawConnection } from "../../helpers/raw-http.js";
import { sendSms, waitForStatus } from "../../helpers/sms.js";
import { FakeAggregator } from "./fake-aggregator.js";
import { aggregatorDefinition } from "./http-sms-helpers.js";

/** Sends `count` GETs of `paths` over `connections` keep-alive connections; answers their statuses. */
async function flood(url: string, paths: () => string, count: number, connections = 4): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let left = count;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      const connection = await RawConnection.open(url);
      try {
        while (left > 0) {
          left -= 1;
          const answer = await connection.request("GET", paths(), { timeoutMs: 10_000 });
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        }
      } finally {
        connection.close();
      }
    }),
  );
  return statuses;
}

/** The system clock moved ahead by `offset`: a test makes time pass without waiting for it. */
function offsetClock(): Clock & { offset: number } {
  const clock = { offset: 0, now: () => new Date(Date.now() + clock.offset) };
  return clock;
}

describeEachEngine("http-sms delivery-report callbacks from outsiders", (engine) => {
  const clock = offsetClock();
  const gateway = useTestGateway(engine, { clock, env: { EARLY_REPORTS_MAX_PER_CONNECTOR: "100" } });
  let aggregator: FakeAggregator;
  let operator: TestAccount;
  beforeAll(async () => {
    aggregator = await new FakeAggregator().start();
    operator = await buildAccount(gateway(), { role: "operator" });
  });
  afterAll(async () => aggregator?.stop());

  const admin = (method: string, path: string, json?: unknown) =>
    call(gateway(), method, `/admin/api${path}`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      ...(json !== undefined ? { json } : {}),
    });
  /** A connector on the fake aggregator (callbacks from loopback), with `dlr` fields changed. */
  const connector = async (name: string, dlr: Record<string, unknown> = {}) => {
    const definition = aggregatorDefinition(aggregator.url, name);
    const created = await admin("PUT", `/carriers/${name}`, { ...definition, dlr: { ...definition.dlr, ...dlr } });
    expect(created.status, created.text).toBe(201);
  };
  const report = (name: string, query: Record<string, string>) =>
    aggregator.callback(`${gateway().url}/carriers/http-sms/${name}/dlr`, { method: "GET", query });
  const kept = async (name: string) =>
    (
      await gateway()
        .db.store.db.selectFrom("early_reports")
        .select(["upstream_id", "received_at"])
        .where("connector", "=", name)
        .orderBy("received_at")
        .orderBy("upstream_id")
        .execute()
    ).map((row) => row.upstream_id);
  const metric = async (name: string) => {
    const text = (await call(gateway(), "GET", "/metrics")).text;
    const line = text.split("\n").find((l) => l.startsWith(`${name} `));
    return Number(line?.split(" ")[1] ?? 0);
  };

  it("keeps nothing for callbacks to connectors that do not exist (404), however many names are tried", async () => {
    const t = gateway();
    // Warm: the route, its parser and the first queries' plans are made once.
    await flood(t.url, () => `/carriers/http-sms/warm-${randomBytes(4).toString("hex")}/dlr`, 200);
    const before = await settledHeap();
    // Names as long as the router takes (maxParamLength 1000), each one new.
    const name = () => randomBytes(500).toString("hex");
    const statuses = await flood(t.url, () => `/carriers/http-sms/${name()}/dlr?id=x&status=DELIVRD`, 6_000);
    expect([...statuses]).toEqual([[404, 6_000]]);
    const grown = (await settledHeap()) - before;
    // Each name kept would be more than 1 KB: 6,000 of them over 6 MiB.
    expect(grown, `the heap grew by ${(grown / MiB).toFixed(1)} MiB`).toBeLessThan(2 * MiB);
  });

  it("refuses with a 400 naming the field a report whose id, status or error code is longer than a carrier's, and keeps none of it", async () => {
    await connector("bounds", { error_code_field: "err" });
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ id: "i".repeat(101), status: "UNDELIV" }, /^id is longer than 100 characters\.$/],
      // On PostgreSQL an id this long answered 500 (index row requires 10032 bytes), again and again.
      [{ id: "i".repeat(10_000), status: "UNDELIV" }, /^id is longer than 100 characters\.$/],
      [{ id: "ok-1", status: "S".repeat(101) }, /^status is longer than 100 characters\.$/],
      [{ id: "ok-1", status: "UNDELIV", err: "e".repeat(101) }, /^err is longer than 100 characters\.$/],
    ];
    for (const [query, message] of cases) {
      const answer = await report("bounds", query);
      expect(answer.status, answer.text).toBe(400);
      expect(answer.text).toMatch(message);
    }
    expect(await kept("bounds")).toEqual([]);
    // The longest that is taken, and the connector still takes reports.
    const longest = await report("bounds", { id: "i".repeat(100), status: "UNDELIV", err: "e".repeat(100) });
    expect(longest.status, longest.text).toBe(200);
    expect(await kept("bounds")).toEqual(["i".repeat(100)]);
  });

  it("answers 500 only to a report the database refuses, and applies the others of its group", async () => {
    const t = gateway();
    await connector("poison");
    // A value the database refuses, whatever it is: a trigger stands for it on both engines.
    if (engine === "sqlite") {
      await sql`create trigger poison_report before insert on early_reports when new.upstream_id = 'poison'
                begin select raise(abort, 'refused by the test'); end`.execute(t.db.store.db);
    } else {
      await sql`create function poison_report() returns trigger language plpgsql as $$
                begin if new.upstream_id = 'poison' then raise exception 'refused by the test'; end if;
                return new; end $$`.execute(t.db.store.db);
      await sql`create trigger poison_report before insert on early_reports
                for each row execute function poison_report()`.execute(t.db.store.db);
    }
    try {
      const ids = ["poison", ...Array.from({ length: 29 }, (_, i) => `fine-${i}`)];
      // At once: the reports are taken in the same group.
      const answers = await Promise.all(ids.map((id) => report("poison", { id, status: "DELIVRD" })));
      expect(answers[0]!.status).toBe(500);
      expect(answers.slice(1).map((a) => a.status)).toEqual(Array(29).fill(200));
      expect((await kept("poison")).sort()).toEqual(ids.slice(1).sort());
    } finally {
      await sql`drop trigger poison_report ${sql.raw(engine === "sqlite" ? "" : "on early_reports")}`.execute(
        t.db.store.db,
      );
    }
  });

  it("keeps at most EARLY_REPORTS_MAX_PER_CONNECTOR reports for ids no message carries, dropping the oldest first", async () => {
    await connector("capped");
    await connector("other");
    expect((await report("other", { id: "other-1", status: "DELIVRD" })).status).toBe(200);
    const dropped = await metric('switchboard_early_reports_dropped_total{reason="over_limit"}');
    for (let i = 0; i < 150; i++) {
      expect((await report("capped", { id: `c-${String(i).padStart(3, "0")}`, status: "DELIVRD" })).status).toBe(200);
    }
    // The newest 100 (EARLY_REPORTS_MAX_PER_CONNECTOR), in the order they came; another connector's untouched.
    expect(await kept("capped")).toEqual(Array.from({ length: 100 }, (_, i) => `c-${String(i + 50).padStart(3, "0")}`));
    expect(await kept("other")).toEqual(["other-1"]);
    expect((await metric('switchboard_early_reports_dropped_total{reason="over_limit"}')) - dropped).toBe(50);
  });

  it("counts each report dropped past a connector's most once, none waiting, when processes keep reports at once", async () => {
    const { store } = gateway().db;
    // No connector of this name: only the test's keeps touch its reports.
    const name = "bounded-at-once";
    const most = 4;
    const bound = { engine, max: most };
    const at = clock.now().getTime();
    const early = (id: string, keptSince: number): DeliveryReport => ({
      connector: name,
      upstreamId: id,
      status: "delivered",
      at: keptSince,
      keptSince,
    });
    const full = [0, 1, 2, 3].map((i) => early(`full-${i}`, at + i));
    await store.transaction((trx) => keepEarlyReports(trx, full, at, bound));
    // Four processes keep two reports each: each finds the connector two past its most.
    const { answers, waited } = await keepsAtOnce(store, 4, (trx, i) =>
      keepEarlyReports(trx, [early(`p${i}-a`, at + 10 + i), early(`p${i}-b`, at + 10 + i)], at, bound),
    );
    const left = await kept(name);
    await store.db.deleteFrom("early_reports").where("connector", "=", name).execute();
    // Each report kept is still there or was dropped, and counted, by exactly one of them.
    expect({ dropped: answers.reduce((sum, n) => sum + n, 0), left: left.length, waited }).toEqual({
      dropped: 12 - left.length,
      left: most,
      waited: 0,
    });
    expect(left.filter((id) => id.startsWith("full-"))).toEqual([]);
  });

  it("never deadlocks a process keeping reports with one forgetting a kept report the first would drop", async () => {
    const { store } = gateway().db;
    const name = "bounded-forget";
    const bound = { engine, max: 3 };
    const at = clock.now().getTime();
    const early = (id: string, keptSince: number): DeliveryReport => ({
      connector: name,
      upstreamId: id,
      status: "delivered",
      at: keptSince,
      keptSince,
    });
    // a-x is stored first and first by id, though b-a came before it (kept as of when each came).
    for (const report of [early("a-x", at + 2), early("b-a", at + 1), early("c-1", at + 3)]) {
      await store.transaction((trx) => keepEarlyReports(trx, [report], at, bound));
    }
    // The first keeps one and drops the oldest, b-a; the second keeps two and drops the two
    // oldest it may; then the first, still open, forgets a-x (as if it had just applied it).
    const { answers } = await keepsAtOnce(
      store,
      2,
      (trx, i) =>
        keepEarlyReports(
          trx,
          i === 0 ? [early("t1", at + 10)] : [early("t2-a", at + 11), early("t2-b", at + 11)],
          at,
          bound,
        ),
      (trx) => forgetEarlyReports(trx, [{ connector: name, upstreamId: "a-x" }]),
    );
    const left = await kept(name);
    await store.db.deleteFrom("early_reports").where("connector", "=", name).execute();
    // On PostgreSQL the second drops a-x and c-1 (b-a the first holds); on SQLite it starts once
    // the first has committed, a-x forgotten, and drops c-1.
    expect({ answers, left }).toEqual({ answers: [1, engine === "postgres" ? 2 : 1], left: ["t1", "t2-a", "t2-b"] });
  });

  it("bounds the work of retrying reports for ids no message carries", async () => {
    const t = gateway();
    await connector("flood");
    // 400 reports show the bound as 1,500 did, in a quarter of the time (1,500 took over 30 s
    // amid the suite on two busy cores).
    const FLOOD = 400;
    // The counter has no connector label: reports the earlier tests kept are still retried, each
    // bounded as the flood's are, so the bound covers them too.
    const earlier = (await gateway().db.store.db.selectFrom("early_reports").select("upstream_id").execute()).length;
    const retried = await metric("switchboard_delivery_report_retries_total");
    const started = Date.now();
    const statuses = await flood(
      t.url,
      () => `/carriers/http-sms/flood/dlr?id=f-${randomBytes(8).toString("hex")}&status=DELIVRD`,
      FLOOD,
    );
    expect([...statuses]).toEqual([[200, FLOOD]]);
    // Retried every 250 ms, FLOOD reports were 4 × FLOOD applications a second. Now each is retried
    // after 250 ms, then 500, 1,000, 2,000 …: in s seconds at most log2(4s + 1) times.
    await until(async () => (await metric("switchboard_delivery_report_retries_total")) - retried >= FLOOD, 10_000);
    // A rate is measured over time: 2 s more let a retry every 250 ms show (a count alone cannot).
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const seconds = (Date.now() - started) / 1000;
    const work = (await metric("switchboard_delivery_report_retries_total")) - retried;
    expect(work, `${work} retries in ${seconds.toFixed(1)} s`).toBeLessThanOrEqual(
      (FLOOD + earlier) * Math.log2(seconds * 4 + 1),
    );
  }, 60_000);

  it("never applies a report that came before its message was due: ids the aggregator gives again, or guessed", async () => {
    const t = gateway();
    await connector("guessed");
    const route = await admin("PUT", "/routes", { route: "*", prefix: "", connectors: [{ name: "guessed" }] });
    expect(route.status, route.text).toBeLessThan(300);
    await t.gateway.workers!.carriers.reload();
    aggregator.reset();
    // The fake aggregator numbers its messages up-1, up-2, …: reports for the next five, FAILED.
    for (let i = 1; i <= 5; i++)
      expect((await report("guessed", { id: `up-${i}`, status: "UNDELIV" })).status).toBe(200);
    expect((await kept("guessed")).sort()).toEqual(["up-1", "up-2", "up-3", "up-4", "up-5"]);
    // A minute later the account sends five messages, which the aggregator numbers up-1 … up-5.
    clock.offset += 60_000;
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const sent = await sendSms(t, account, {
        sender_id: "SWBRD",
        recipient: `987654321${i}`,
        message: "Your OTP is 4321",
        dlt_entity_id: "1101234567890123456",
        dlt_template_id: "1107161234567890123",
      });
      expect(sent.status, sent.text).toBe(200);
      ids.push(sent.body.data.message_id);
    }
    for (const id of ids) await waitForStatus(t, account, id, { until: (s) => s === "submitted" });
    expect(aggregator.requests.map((_, i) => `up-${i + 1}`)).toEqual(["up-1", "up-2", "up-3", "up-4", "up-5"]);
    // The kept reports meet their ids on messages due after they came: dropped, not applied.
    await until(async () => (await kept("guessed")).length === 0, 15_000);
    for (const id of ids) expect((await waitForStatus(t, account, id, { until: () => true })).status).toBe("submitted");
    // The aggregator's own reports, after the sends, apply.
    for (let i = 1; i <= 5; i++)
      expect((await report("guessed", { id: `up-${i}`, status: "DELIVRD" })).status).toBe(200);
    for (const id of ids) expect((await waitForStatus(t, account, id)).status).toBe("delivered");
    await admin("DELETE", "/routes?route=*");
  });
});
