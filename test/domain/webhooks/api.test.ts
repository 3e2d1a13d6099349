import { expect, it } from "vitest";
import { createLogger } from "../../../src/app/gateway.js";
import { delivery } from "../../../src/domain/webhooks/delivery-rows.js";
import { DEFAULT_SENDER_OPTIONS, WebhookSender } from "../../../src/domain/webhooks/sender.js";
import { describeEachEngine } from "../../helpers/engines.js";
import {
  buildAccount,
  call,
  type JsonResponse,
  type TestAccount,
  type TestGateway,
  useTestGateway,
} from "../../helpers/gateway.js";
import { FAST_SIMULATOR, ISO_UTC } from "../../helpers/sms.js";
import { receiver, until, useReceivers, verify } from "./receiver.js";

useReceivers();

function api(t: TestGateway, account: TestAccount) {
  return (method: string, path: string, json?: unknown): Promise<JsonResponse> =>
    call(t, method, `/api/v2${path}`, {
      headers: { "x-api-key": account.apiKey },
      ...(json !== undefined ? { json } : {}),
    });
}

function expectError(response: JsonResponse, status: number, code: string) {
  expect({ status: response.status, body: response.body }).toMatchObject({
    status,
    body: { status: "error", error: { code } },
  });
}

/** The spec's fields in its order, then what a real delivery_report adds after them (broadcast-ids.test.ts). */
const DELIVERY_REPORT_FIELDS = ["event", "message_id", "status", "delivered_at", "recipient", "broadcast_id"];

describeEachEngine("webhook API with the gateway's own sender", (engine) => {
  const gateway = useTestGateway(engine, { env: { ...FAST_SIMULATOR, SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1" } });

  it("sets, reads and removes URLs per event; the secret stays until rotated", async () => {
    const t = gateway();
    const v2 = api(t, await buildAccount(t));
    const empty = await v2("GET", "/webhooks");
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({
      status: "success",
      data: {
        delivery_report: null,
        inbound_sms: null,
        inbound_whatsapp: null,
        low_balance: null,
        verification_approved: null,
        verification_denied: null,
        verification_expired: null,
        chain_completed: null,
        link_clicked: null,
        secret: null,
      },
    });

    const set = await v2("PUT", "/webhooks", {
      delivery_report: "http://127.0.0.1:9/reports",
      inbound_sms: "http://127.0.0.1:9/inbound",
    });
    expect(set.status).toBe(200);
    expect(set.body.data).toMatchObject({
      delivery_report: "http://127.0.0.1:9/reports",
      inbound_sms: "http://127.0.0.1:9/inbound",
    });
    const secret = set.body.data.secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect((await v2("GET", "/webhooks")).body.data).toEqual(set.body.data);

    const removed = await v2("PUT", "/webhooks", { inbound_sms: null });
    expect(removed.body.data).toEqual({
      delivery_report: "http://127.0.0.1:9/reports",
      inbound_sms: null,
      inbound_whatsapp: null,
      low_balance: null,
      verification_approved: null,
      verification_denied: null,
      verification_expired: null,
      chain_completed: null,
      link_clicked: null,
      secret,
    });
    expect((await v2("GET", "/webhooks")).body.data).toEqual(removed.body.data);
  });

  it("refuses malformed URLs and unknown fields with 400, changing nothing", async () => {
    const t = gateway();
    const v2 = api(t, await buildAccount(t));
    await v2("PUT", "/webhooks", { delivery_report: "http://127.0.0.1:9/ok" });
    const bad: [string, RegExp][] = [
      ["not a url", /spaces|absolute URL/],
      ["notaurl", /absolute URL/],
      ["ftp://example.com/hook", /uses ftp/],
      ["https://user:pass@example.com/hook", /user name or password/],
      [`https://example.com/${"a".repeat(2048)}`, /longer than 2048/],
    ];
    for (const [url, reason] of bad) {
      const answer = await v2("PUT", "/webhooks", { inbound_sms: "http://127.0.0.1:9/fine", delivery_report: url });
      expectError(answer, 400, "invalid_request");
      expect(answer.body.error.field).toBe("delivery_report");
      expect(answer.body.message).toMatch(reason);
    }
    expectError(await v2("PUT", "/webhooks", { delivery_report: 42 }), 400, "invalid_request");
    const unknown = await v2("PUT", "/webhooks", { email: "https://example.com/hook" });
    expectError(unknown, 400, "invalid_request");
    expect(unknown.body.message).toContain("email");
    expect((await v2("GET", "/webhooks")).body.data).toMatchObject({
      delivery_report: "http://127.0.0.1:9/ok",
      inbound_sms: null,
    });
  });

  it("sends a signed test event shaped as a real one (the spec's fields, then a sample broadcast_id), and 409 without a URL for it", async () => {
    const t = gateway();
    const hook = await receiver();
    const account = await buildAccount(t);
    const v2 = api(t, account);
    const noUrl = await v2("POST", "/webhooks/test", {});
    expectError(noUrl, 409, "conflict");
    // It says where a URL is set, by the path a client calls.
    expect(noUrl.body.message).toContain("set one first (PUT /api/v2/webhooks;");
    const { secret } = (await v2("PUT", "/webhooks", { delivery_report: hook.url })).body.data;
    expectError(await v2("POST", "/webhooks/test", { event: "inbound_sms" }), 409, "conflict");
    // A value outside the choice, of any type, is told the events the call takes.
    for (const event of ["email", "bogus", 5, true]) {
      const refused = await v2("POST", "/webhooks/test", { event });
      expectError(refused, 400, "invalid_request");
      expect(refused.body.error.field).toBe("event");
      expect(refused.body.message).toBe(
        'Field "event" must be one of delivery_report, inbound_sms, inbound_whatsapp, low_balance, ' +
          "verification_approved, verification_denied, verification_expired, chain_completed, link_clicked.",
      );
    }

    const queued = await v2("POST", "/webhooks/test", {});
    expect(queued.status).toBe(202);
    expect(queued.body.data).toMatchObject({ event: "delivery_report", url: hook.url, status: "pending" });
    expect(queued.body.data.webhook_id).toMatch(/^msg_test_/);
    await until(() => hook.received.length >= 1);
    const [request] = hook.received;
    expect(request!.headers["webhook-id"]).toBe(queued.body.data.webhook_id);
    const body = verify(secret, request!) as Record<string, unknown>;
    // Shaped as a real one: a client builds its matching on the test (decision 0186).
    expect(Object.keys(body)).toEqual(DELIVERY_REPORT_FIELDS);
    expect(body).toEqual(queued.body.data.payload);
    // The account's broadcast id shape, today, sequence 000000: it names no broadcast.
    expect(body.broadcast_id).toMatch(new RegExp(`^${account.id}_\\d{8}_000000$`));
    expect((await v2("GET", `/sms/status/${body.broadcast_id}`)).status).toBe(404);
    expect(body.delivered_at).toMatch(ISO_UTC);

    await v2("PUT", "/webhooks", { inbound_sms: hook.url });
    expect((await v2("POST", "/webhooks/test", { event: "inbound_sms" })).status).toBe(202);
    await until(() => hook.received.length >= 2);
    const inbound = verify(secret, hook.received[1]!) as Record<string, unknown>;
    expect(Object.keys(inbound).sort()).toEqual(["event", "from", "message", "received_at", "to"]);
    expect(inbound).toMatchObject({ event: "inbound_sms", to: "0000000000" });

    // With virtual numbers, the sample is sent to the one assigned first.
    for (const number of ["9000000002", "9000000001"]) {
      await t.db.store.db
        .insertInto("inbound_numbers")
        .values({ account_id: account.id, number, created_at: Date.now() })
        .execute();
    }
    expect((await v2("POST", "/webhooks/test", { event: "inbound_sms" })).status).toBe(202);
    await until(() => hook.received.length >= 3);
    expect(verify(secret, hook.received[2]!)).toMatchObject({ event: "inbound_sms", to: "9000000002" });

    // link_clicked's sample has that event's fields (it had inbound_sms's).
    await v2("PUT", "/webhooks", { link_clicked: hook.url });
    expect((await v2("POST", "/webhooks/test", { event: "link_clicked" })).status).toBe(202);
    await until(() => hook.received.length >= 4);
    const clicked = verify(secret, hook.received[3]!) as Record<string, unknown>;
    expect(Object.keys(clicked).sort()).toEqual([
      "clicked_at",
      "event",
      "message_id",
      "short_url",
      "url",
      "user_agent",
    ]);
    expect(clicked).toMatchObject({ event: "link_clicked", clicked_at: expect.stringMatching(ISO_UTC) });

    // chain_completed's sample: each step with a real step's fields, `to` included, and an
    // outcome its steps bear out (delivered: some step's message was delivered).
    await v2("PUT", "/webhooks", { chain_completed: hook.url });
    expect((await v2("POST", "/webhooks/test", { event: "chain_completed" })).status).toBe(202);
    await until(() => hook.received.length >= 5);
    const chain = verify(secret, hook.received[4]!) as { outcome: string; steps: Record<string, unknown>[] };
    expect(Object.keys(chain)).toEqual(["event", "chain_id", "recipient", "outcome", "steps", "at"]);
    for (const step of chain.steps) expect(Object.keys(step)).toEqual(["channel", "to", "message_id", "status"]);
    expect(chain.outcome).toBe("delivered");
    expect(chain.steps.map((step) => step.status)).toContain("delivered");
  });

  it("rotates the secret: deliveries verify with the new and, for 24 hours, the old one", async () => {
    const t = gateway();
    const hook = await receiver();
    const v2 = api(t, await buildAccount(t));
    const old = (await v2("PUT", "/webhooks", { delivery_report: hook.url })).body.data.secret as string;
    const rotated = await v2("POST", "/webhooks/rotate-secret");
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.data.secret as string;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(old);
    const until24h = Date.parse(rotated.body.data.previous_valid_until) - Date.now();
    expect(until24h).toBeGreaterThan(24 * 3600_000 - 60_000);
    expect(until24h).toBeLessThanOrEqual(24 * 3600_000);
    expect((await v2("GET", "/webhooks")).body.data.secret).toBe(fresh);

    await v2("POST", "/webhooks/test");
    await until(() => hook.received.length >= 1);
    const request = hook.received[0]!;
    expect(String(request.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(verify(fresh, request)).toBeTruthy();
    expect(verify(old, request)).toBeTruthy();

    // Rotated again within the day: the new and the one just rotated out sign, the first no more.
    const third = (await v2("POST", "/webhooks/rotate-secret")).body.data.secret as string;
    const fourth = (await v2("POST", "/webhooks/rotate-secret")).body.data.secret as string;
    await v2("POST", "/webhooks/test");
    await until(() => hook.received.length >= 2);
    const after = hook.received[1]!;
    expect(String(after.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(verify(fourth, after)).toBeTruthy();
    expect(verify(third, after)).toBeTruthy();
    expect(() => verify(fresh, after)).toThrow();
    expect(() => verify(old, after)).toThrow();
  });

  it("lists a failed first attempt, still pending with the next attempt in the future", async () => {
    const t = gateway();
    const hook = await receiver();
    hook.answer = (_r, i) => (i === 0 ? 500 : 200);
    const v2 = api(t, await buildAccount(t));
    await v2("PUT", "/webhooks", { delivery_report: hook.url });
    const { id } = (await v2("POST", "/webhooks/test")).body.data;
    let listed: JsonResponse | undefined;
    await until(async () => {
      listed = await v2("GET", "/webhooks/deliveries");
      return listed.body.data[0]?.attempts_log.length === 1;
    });
    const delivery = listed!.body.data[0];
    expect(delivery).toMatchObject({ id, status: "pending", attempts: 1, last_status: 500, last_error: "HTTP 500" });
    expect(delivery.attempts_log).toEqual([
      {
        attempt: 1,
        url: delivery.url,
        status_code: 500,
        latency_ms: expect.any(Number),
        error: "HTTP 500",
        at: expect.any(String),
      },
    ]);
    expect(delivery.attempts_log[0].at).toMatch(ISO_UTC);
    // The default first retry is 5 s ±20 %.
    expect(Date.parse(delivery.next_attempt_at)).toBeGreaterThan(Date.now() + 2_000);
    expect(delivery.done_at).toBeNull();
    // A delivery still being retried is not redelivered by hand.
    expectError(await v2("POST", `/webhooks/deliveries/${id}/redeliver`), 409, "conflict");
  });

  it("operator routes manage another account's webhooks; a customer key is refused", async () => {
    const t = gateway();
    const hook = await receiver();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const customer = await buildAccount(t);
    const admin = (method: string, path: string, json?: unknown) =>
      call(t, method, `/admin/api/accounts/${customer.username}/webhooks${path}`, {
        headers: { authorization: `Bearer ${operator.apiKey}` },
        ...(json !== undefined ? { json } : {}),
      });
    const set = await admin("PUT", "", { delivery_report: hook.url });
    expect(set.status).toBe(200);
    expect(set.body.data.delivery_report).toBe(hook.url);
    // The customer sees what the operator set.
    const v2 = api(t, customer);
    expect((await v2("GET", "/webhooks")).body.data).toEqual(set.body.data);
    expect((await admin("GET", "")).body.data).toEqual(set.body.data);
    expectError(await admin("PUT", "", { delivery_report: "ftp://example.com/" }), 400, "invalid_request");

    const queued = await admin("POST", "/test", { event: "delivery_report" });
    expect(queued.status).toBe(202);
    await until(() => hook.received.length >= 1);
    const listed = await admin("GET", "/deliveries");
    expect(listed.body.meta).toEqual({ page: 1, per_page: 25, total: 1, last_page: 1 });
    expect(listed.body.data[0].id).toBe(queued.body.data.id);
    // Operator answers write milliseconds.
    expect(listed.body.data[0].created_at).toMatch(/\.\d{3}Z$/);
    await until(async () => (await admin("GET", "/deliveries")).body.data[0].status === "delivered");
    const again = await admin("POST", `/deliveries/${queued.body.data.id}/redeliver`);
    expect(again.status).toBe(202);
    await until(() => hook.received.length >= 2);
    const range = await admin("POST", "/deliveries/redeliver", {
      from: "2000-01-01T00:00:00Z",
      to: "2100-01-01T00:00:00Z",
      status: "delivered",
    });
    expect(range.status).toBe(202);
    expect(range.body.data.count).toBeGreaterThanOrEqual(1);

    const rotated = await admin("POST", "/rotate-secret");
    expect((await v2("GET", "/webhooks")).body.data.secret).toBe(rotated.body.data.secret);
    expectError(
      await call(t, "GET", "/admin/api/accounts/nobody-here/webhooks", {
        headers: { authorization: `Bearer ${operator.apiKey}` },
      }),
      404,
      "not_found",
    );
    for (const [method, path, json] of [
      ["GET", ""],
      ["PUT", "", { delivery_report: hook.url }],
      ["POST", "/rotate-secret"],
      ["POST", "/test", {}],
      ["GET", "/deliveries"],
      ["POST", "/deliveries/1/redeliver"],
      ["POST", "/deliveries/redeliver", { from: "2000-01-01T00:00:00Z", to: "2100-01-01T00:00:00Z" }],
    ] as [string, string, unknown?][]) {
      const answer = await call(t, method, `/admin/api/accounts/${customer.username}/webhooks${path}`, {
        headers: { authorization: `Bearer ${customer.apiKey}` },
        ...(json !== undefined ? { json } : {}),
      });
      expectError(answer, 403, "operator_only");
    }
  });
});

describeEachEngine("webhook deliveries API with a fast sender", (engine) => {
  // API only: each test drives its own sender with short delays.
  const gateway = useTestGateway(engine, { roles: ["api"], env: { SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1" } });
  const fast = { ...DEFAULT_SENDER_OPTIONS, allowPrivate: true, baseDelayMs: 40, maxDelayMs: 200, idleMs: 20 };

  async function withSender<T>(t: TestGateway, options: Partial<typeof fast>, fn: () => Promise<T>): Promise<T> {
    const sender = new WebhookSender(
      { store: t.db.store, clock: t.clock, logger: createLogger({ logLevel: "silent" }) },
      { ...fast, ...options },
    );
    sender.start();
    try {
      return await fn();
    } finally {
      await sender.stop();
    }
  }

  it("lists every attempt of a delivery that failed once then succeeded", async () => {
    const t = gateway();
    const hook = await receiver();
    hook.answer = (_r, i) => (i === 0 ? 500 : 200);
    const v2 = api(t, await buildAccount(t));
    await v2("PUT", "/webhooks", { delivery_report: hook.url });
    const { id } = (await v2("POST", "/webhooks/test")).body.data;
    await withSender(t, {}, () =>
      until(async () => (await v2("GET", "/webhooks/deliveries")).body.data[0]?.status === "delivered"),
    );
    const [delivery] = (await v2("GET", "/webhooks/deliveries")).body.data;
    expect(delivery).toMatchObject({
      id,
      status: "delivered",
      attempts: 2,
      last_status: 200,
      last_error: null,
      next_attempt_at: null,
      url: hook.url,
      redelivery_of: null,
    });
    expect(delivery.done_at).toMatch(ISO_UTC);
    expect(delivery.created_at).toMatch(ISO_UTC);
    expect(
      delivery.attempts_log.map((a: { attempt: number; status_code: number; error: string | null }) => [
        a.attempt,
        a.status_code,
        a.error,
      ]),
    ).toEqual([
      [1, 500, "HTTP 500"],
      [2, 200, null],
    ]);
    expect(hook.received).toHaveLength(2);
    expect(hook.received[0]!.headers["webhook-id"]).toBe(hook.received[1]!.headers["webhook-id"]);
  });

  it("redelivers one delivery with a new webhook-id to the current URL; another account's id is 404", async () => {
    const t = gateway();
    const first = await receiver();
    const second = await receiver();
    const account = await buildAccount(t);
    const v2 = api(t, account);
    const { secret } = (await v2("PUT", "/webhooks", { delivery_report: first.url })).body.data;
    const original = (await v2("POST", "/webhooks/test")).body.data;
    await withSender(t, {}, () => until(() => first.received.length >= 1));

    const other = api(t, await buildAccount(t));
    expectError(await other("POST", `/webhooks/deliveries/${original.id}/redeliver`), 404, "not_found");
    expectError(await v2("POST", "/webhooks/deliveries/999999999/redeliver"), 404, "not_found");
    expectError(await v2("POST", "/webhooks/deliveries/abc/redeliver"), 404, "not_found");
    expect((await other("GET", "/webhooks/deliveries")).body.data).toEqual([]);

    await v2("PUT", "/webhooks", { delivery_report: second.url });
    const again = await v2("POST", `/webhooks/deliveries/${original.id}/redeliver`);
    expect(again.status).toBe(202);
    expect(again.body.data).toMatchObject({ redelivery_of: original.id, url: second.url, status: "pending" });
    expect(again.body.data.webhook_id).not.toBe(original.webhook_id);
    expect(again.body.data.payload).toEqual(original.payload);
    await withSender(t, {}, () => until(() => second.received.length >= 1));
    expect(second.received[0]!.headers["webhook-id"]).toBe(again.body.data.webhook_id);
    expect(verify(secret, second.received[0]!)).toEqual(original.payload);
    expect(first.received).toHaveLength(1);

    await v2("PUT", "/webhooks", { delivery_report: null });
    expectError(await v2("POST", `/webhooks/deliveries/${original.id}/redeliver`), 409, "conflict");
  });

  it("keeps a test event's msg_test_ mark on its redeliveries, one or by range; a message's event gets none", async () => {
    const t = gateway();
    const hook = await receiver();
    const account = await buildAccount(t);
    const v2 = api(t, account);
    await v2("PUT", "/webhooks", { delivery_report: hook.url });
    const sample = (await v2("POST", "/webhooks/test")).body.data;
    // A delivery report the outbox wrote for a real message, already delivered.
    const report = delivery(account.id, "delivery_report", "q01M81622NET1B1XB4AS15D2RM4", hook.url, Date.now(), {
      event: "delivery_report",
      message_id: "q01M81622NET1B1XB4AS15D2RM4",
      status: "delivered",
      delivered_at: "2026-11-22T08:30:43Z",
      recipient: "9876543210",
    });
    const real = await t.db.store.db
      .insertInto("webhook_deliveries")
      .values({ ...report, status: "delivered", attempts: 1, done_at: Date.now() })
      .returning(["id", "webhook_id"])
      .executeTakeFirstOrThrow();
    expect(real.webhook_id).toMatch(/^msg_[0-9A-Z]{26}$/);
    await withSender(t, {}, () => until(() => hook.received.length >= 1));

    const again = (await v2("POST", `/webhooks/deliveries/${sample.id}/redeliver`)).body.data;
    expect(again.webhook_id).toMatch(/^msg_test_[0-9A-Z]{26}$/);
    expect(again.webhook_id).not.toBe(sample.webhook_id);
    expect((await v2("POST", `/webhooks/deliveries/${real.id}/redeliver`)).body.data.webhook_id).toMatch(
      /^msg_[0-9A-Z]{26}$/,
    );
    await withSender(t, {}, () => until(() => hook.received.length >= 3));
    expect(hook.received.map((r) => String(r.headers["webhook-id"]).startsWith("msg_test_"))).toEqual([
      true,
      true,
      false,
    ]);

    const range = await v2("POST", "/webhooks/deliveries/redeliver", {
      from: "2000-01-01T00:00:00Z",
      to: "2100-01-01T00:00:00Z",
      status: "delivered",
    });
    expect(range.body.data.count).toBe(4);
    const copies = (await v2("GET", "/webhooks/deliveries?per_page=4")).body.data as {
      webhook_id: string;
      redelivery_of: number;
    }[];
    const marked = (of: number) => copies.find((d) => d.redelivery_of === of)!.webhook_id.startsWith("msg_test_");
    expect([sample.id, again.id, real.id].map(marked)).toEqual([true, true, false]);
  });

  it("redelivers the failed deliveries of a time range, in one call", async () => {
    const t = gateway();
    const hook = await receiver();
    hook.answer = () => 500;
    const v2 = api(t, await buildAccount(t));
    await v2("PUT", "/webhooks", { delivery_report: hook.url, inbound_sms: hook.url });
    const from = new Date(Date.now() - 1_000).toISOString();
    const failed = [];
    for (let i = 0; i < 3; i++) failed.push((await v2("POST", "/webhooks/test")).body.data);
    // Nothing is retried: the first failure is final.
    await withSender(t, { retryForMs: 0 }, () =>
      until(
        async () =>
          (await v2("GET", "/webhooks/deliveries?status=failed")).body.meta.total === 3 && hook.received.length === 3,
      ),
    );
    hook.answer = () => 200;
    const delivered = (await v2("POST", "/webhooks/test", { event: "inbound_sms" })).body.data;
    await withSender(t, {}, () => until(() => hook.received.length === 4));
    const to = new Date(Date.now() + 1_000).toISOString();

    const before = await v2("POST", "/webhooks/deliveries/redeliver", { from: "2000-01-01T00:00:00Z", to: from });
    expect(before.body.data).toEqual({ count: 0, more: false, next_from: null });
    const range = await v2("POST", "/webhooks/deliveries/redeliver", { from, to });
    expect(range.status).toBe(202);
    expect(range.body.data).toEqual({ count: 3, more: false, next_from: null });
    await withSender(t, {}, () => until(() => hook.received.length === 7));
    const redelivered = hook.received.slice(4);
    const oldIds = new Set(failed.map((d) => d.webhook_id));
    for (const r of redelivered) expect(oldIds.has(String(r.headers["webhook-id"]))).toBe(false);
    const messageIds = (bodies: { message_id: string }[]) => bodies.map((b) => b.message_id).sort();
    expect(messageIds(redelivered.map((r) => JSON.parse(r.body)))).toEqual(messageIds(failed.map((d) => d.payload)));
    const copies = (await v2("GET", "/webhooks/deliveries?per_page=3")).body.data;
    expect(copies.map((d: { redelivery_of: number }) => d.redelivery_of).sort()).toEqual(
      failed.map((d) => d.id).sort(),
    );
    expect(copies.every((d: { status: string }) => d.status === "delivered")).toBe(true);

    const inboundOnly = await v2("POST", "/webhooks/deliveries/redeliver", {
      from,
      to,
      status: "delivered",
      event: "inbound_sms",
    });
    expect(inboundOnly.body.data.count).toBe(1);
    const newest = (await v2("GET", "/webhooks/deliveries?per_page=1")).body.data[0];
    expect(newest.redelivery_of).toBe(delivered.id);

    for (const body of [
      { from: "yesterday", to },
      { from: to, to: from },
      { from, to, status: "pending" },
      { from },
      { from, to, extra: 1 },
    ]) {
      expectError(await v2("POST", "/webhooks/deliveries/redeliver", body), 400, "invalid_request");
    }
  });

  it("pages the deliveries newest first, and refuses pages out of range", async () => {
    const t = gateway();
    const v2 = api(t, await buildAccount(t));
    await v2("PUT", "/webhooks", { delivery_report: "http://127.0.0.1:9/hook", inbound_sms: "http://127.0.0.1:9/in" });
    const ids = [];
    for (let i = 0; i < 5; i++) {
      ids.push(
        (await v2("POST", "/webhooks/test", { event: i === 4 ? "inbound_sms" : "delivery_report" })).body.data.id,
      );
    }
    const first = await v2("GET", "/webhooks/deliveries?per_page=2");
    expect(first.body.data.map((d: { id: number }) => d.id)).toEqual([ids[4], ids[3]]);
    expect(first.body.meta).toEqual({ page: 1, per_page: 2, total: 5, last_page: 3 });
    const last = await v2("GET", "/webhooks/deliveries?per_page=2&page=3");
    expect(last.body.data.map((d: { id: number }) => d.id)).toEqual([ids[0]]);
    const past = await v2("GET", "/webhooks/deliveries?per_page=2&page=4");
    expect(past.status).toBe(200);
    expect(past.body).toMatchObject({ data: [], meta: { page: 4, per_page: 2, total: 5, last_page: 3 } });
    const defaults = await v2("GET", "/webhooks/deliveries");
    expect(defaults.body.meta).toEqual({ page: 1, per_page: 25, total: 5, last_page: 1 });
    expect((await v2("GET", "/webhooks/deliveries?per_page=100")).status).toBe(200);
    const inbound = await v2("GET", "/webhooks/deliveries?event=inbound_sms&status=pending");
    expect(inbound.body.data.map((d: { id: number }) => d.id)).toEqual([ids[4]]);
    expect((await v2("GET", "/webhooks/deliveries?status=failed")).body.meta.total).toBe(0);
    for (const query of ["page=0", "per_page=0", "per_page=101", "page=x", "status=lost", "event=voice"]) {
      const answer = await v2("GET", `/webhooks/deliveries?${query}`);
      expectError(answer, 400, "invalid_request");
      expect(answer.body.error.field).toBe(query.split("=")[0]);
    }
  });
});

describeEachEngine("webhook URLs without SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS", (engine) => {
  const gateway = useTestGateway(engine, { roles: ["api"] });

  it("refuses plain http, loopback, localhost and metadata targets, naming the reason", async () => {
    const t = gateway();
    const v2 = api(t, await buildAccount(t));
    const refused: [string, RegExp][] = [
      ["http://127.0.0.1:8080/hook", /uses http/],
      ["https://127.0.0.1/hook", /127\.0\.0\.1, a loopback address/],
      ["https://localhost/hook", /localhost, a loopback name/],
      ["https://169.254.169.254/latest/meta-data", /metadata/],
      ["https://168.63.129.16/machine?comp=goalstate", /168\.63\.129\.16, a cloud metadata service address/],
      ["https://100.100.100.200/latest/meta-data", /metadata/],
      ["https://[fd00:ec2::254]/latest/meta-data", /metadata/],
      ["https://metadata.google.internal/computeMetadata/v1/", /metadata/],
      ["https://10.0.0.5/hook", /private-network/],
    ];
    for (const [url, reason] of refused) {
      const answer = await v2("PUT", "/webhooks", { inbound_sms: url });
      expectError(answer, 400, "invalid_request");
      expect(answer.body.error.field).toBe("inbound_sms");
      expect(answer.body.message).toMatch(reason);
    }
    expect((await v2("GET", "/webhooks")).body.data.inbound_sms).toBeNull();
    const fine = await v2("PUT", "/webhooks", { inbound_sms: "https://hooks.example.com/sms" });
    expect(fine.status).toBe(200);
    expect(fine.body.data.inbound_sms).toBe("https://hooks.example.com/sms");
  });
});
