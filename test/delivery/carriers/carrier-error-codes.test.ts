// Operators' error codes (issue 40, item 5) through the real server, on both engines: receipts of
// the fake SMSC over SMPP (err:6xx) and callbacks of the fake aggregator over http-sms fail their
// message with the reason the connector's error_codes (or the default table) maps the code to, in
// the status answer and the delivery_report webhook; the reasons REFUND_CARRIER_REASONS names
// are refunded at every level of a reseller's tree and the others not; a code no table knows keeps
// today's failure; bad tables are refused with a 400 naming the wrong entry.
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { applyCarriersDocument } from "../../../src/delivery/carriers/carriers-document.js";
import { listCarriers, listRoutes, removeCarrier, removeRoute } from "../../../src/delivery/carriers/catalog.js";
import { receiver, until, useReceivers } from "../../domain/webhooks/receiver.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { auditLedger, milli, subAccount } from "../../helpers/resellers.js";
import { keyOf, sendSms, waitForStatus } from "../../helpers/sms.js";
import { smppDefinition } from "./carrier-api.js";
import { FakeAggregator } from "./fake-aggregator.js";
import { aggregatorDefinition } from "./http-sms-helpers.js";
import { fakeSmsc } from "./smpp-helpers.js";

useReceivers();

describeEachEngine("operators' error codes", (engine) => {
  const gateway = useTestGateway(engine, {
    env: {
      REFUND_CARRIER_REASONS: "dlt_template_mismatch,dlt_header_inactive",
      SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1",
    },
  });
  let operator: TestAccount | undefined;
  let aggregator: FakeAggregator;
  beforeAll(async () => {
    aggregator = await new FakeAggregator().start();
  });
  afterAll(async () => aggregator?.stop());

  const admin = async (method: string, path: string, json?: unknown) => {
    const t = gateway();
    operator ??= await buildAccount(t, { role: "operator" });
    return call(t, method, `/admin/api${path}`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      ...(json !== undefined ? { json } : {}),
    });
  };
  const applied = () => gateway().gateway.workers!.carriers.reload();

  afterEach(async () => {
    const t = gateway();
    await auditLedger(t);
    const deps = { store: t.db.store, clock: t.clock };
    for (const route of await listRoutes(t.db.store.db)) await removeRoute(deps, route.route, route.prefix);
    for (const carrier of await listCarriers(t.db.store.db)) await removeCarrier(deps, carrier.name);
    await applied();
  });

  /** An account whose failed delivery reports go to a webhook receiver. */
  const hookedAccount = async (account: TestAccount) => {
    const hooks = await receiver();
    const set = await call(gateway(), "PUT", "/api/v2/webhooks", {
      headers: keyOf(account),
      json: { delivery_report: hooks.url },
    });
    expect(set.status, set.text).toBe(200);
    return hooks;
  };
  const failedEvent = (hooks: Awaited<ReturnType<typeof receiver>>, id: string) =>
    hooks.received
      .map((r) => JSON.parse(r.body))
      .find((event) => JSON.stringify(event).includes(id) && JSON.stringify(event).includes('"failed"'));
  const send = async (account: TestAccount, recipient: string) => {
    const sent = await sendSms(gateway(), account, { sender_id: "SWBRD", recipient, message: "Your OTP is 4321" });
    expect(sent.status, sent.text).toBe(200);
    return sent.body.data.message_id as string;
  };

  it("maps SMPP receipts' err codes to reasons, refunds the reasons the policy names at every level, and leaves unknown codes as they were", async () => {
    const t = gateway();
    const smsc = await fakeSmsc();
    const definition = smppDefinition("dlt-smpp", smsc, {
      error_codes: { "699": { reason: "dlt_consent_missing", description: "Consent scrub failed (operator's own)" } },
    });
    expect((await admin("POST", "/carriers", definition)).status).toBe(201);
    expect((await admin("PUT", "/routes", { route: "T", prefix: "", connectors: [{ name: "dlt-smpp" }] })).status).toBe(
      201,
    );
    await applied();
    await until(async () => (await admin("GET", "/carriers/dlt-smpp")).body.data.health.state === "up", 10_000);

    const parent = await buildAccount(t, { credits: { sms: 100 } });
    const account = await subAccount(t, parent, {}, { sms: 50 });
    const hooks = await hookedAccount(account);
    const cases = [
      { err: "633", reason: "dlt_template_mismatch", refunded: true },
      { err: "621", reason: "dlt_header_inactive", refunded: true },
      { err: "699", reason: "dlt_consent_missing", refunded: false },
      { err: "001", reason: undefined, refunded: false },
    ];
    const before = { account: await milli(t, account.id), parent: await milli(t, parent.id) };
    const ids: string[] = [];
    for (let i = 0; i < cases.length; i++) ids.push(await send(account, `98765000${String(i).padStart(2, "0")}`));
    await until(() => smsc.submits.length === cases.length && smsc.submits.every((s) => s.messageId !== null));
    const charged = {
      account: before.account - (await milli(t, account.id)),
      parent: before.parent - (await milli(t, parent.id)),
    };
    expect(charged.account).toBeGreaterThan(0);
    for (const [i, c] of cases.entries()) {
      const submit = smsc.submits.find((s) => s.destination.endsWith(`98765000${String(i).padStart(2, "0")}`))!;
      smsc.sendReceipt(submit.messageId!, { stat: "UNDELIV", err: c.err });
    }

    for (const [i, c] of cases.entries()) {
      const status = await waitForStatus(t, account, ids[i]!);
      expect(status.status).toBe("failed");
      expect(status.error.code).toBe("UNDELIV");
      if (c.reason) {
        expect(status.error).toMatchObject({ reason: c.reason, carrier_code: c.err });
      } else {
        expect(status.error).not.toHaveProperty("reason");
        expect(status.error).not.toHaveProperty("carrier_code");
        expect(status.error.message).toContain("err 001");
      }
    }
    await until(() => ids.every((id) => failedEvent(hooks, id) !== undefined));
    for (const [i, c] of cases.entries()) {
      const event = JSON.stringify(failedEvent(hooks, ids[i]!));
      if (c.reason) expect(event).toContain(`"reason":"${c.reason}"`);
      else expect(event).not.toContain('"reason"');
    }
    // Two of four refunded, at both levels: each message cost the same.
    const refundedCount = cases.filter((c) => c.refunded).length;
    expect(before.account - (await milli(t, account.id))).toBe(
      (charged.account / cases.length) * (cases.length - refundedCount),
    );
    expect(before.parent - (await milli(t, parent.id))).toBe(
      (charged.parent / cases.length) * (cases.length - refundedCount),
    );
    const refunds = await t.db.store.db
      .selectFrom("ledger_entries")
      .select(["ref", "account_id"])
      .where("kind", "=", "refund")
      .where("ref", "in", ids)
      .execute();
    expect(new Set(refunds.map((r) => r.ref))).toEqual(new Set([ids[0], ids[1]]));
    expect(refunds).toHaveLength(4);
    const marked = await t.db.store.db
      .selectFrom("messages")
      .select(["id", "carrier_refunded_at"])
      .where("id", "in", ids)
      .execute();
    expect(
      marked
        .filter((row) => row.carrier_refunded_at !== null)
        .map((row) => row.id)
        .sort(),
    ).toEqual([ids[0]!, ids[1]!].sort());

    // The error breakdown counts a mapped failure under its reason, an unknown one under its code;
    // the operator's message list finds it by either.
    const breakdown = await call(t, "GET", "/api/v2/analytics/delivery?group_by=error_code", {
      headers: keyOf(account),
    });
    expect(breakdown.status, breakdown.text).toBe(200);
    const failedBy = Object.fromEntries(
      breakdown.body.data.rows.map((row: { key: string; failed: number }) => [row.key, row.failed]),
    );
    expect(failedBy).toMatchObject({
      dlt_template_mismatch: 1,
      dlt_header_inactive: 1,
      dlt_consent_missing: 1,
      UNDELIV: 1,
    });
    const listed = await admin("GET", `/messages?account=${account.username}&error_code=dlt_header_inactive`);
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data.map((row: { message_id: string }) => row.message_id)).toEqual([ids[1]]);
  });

  it("maps an SMSC's vendor-specific refusal of a submit, which is refunded as every refusal before a carrier", async () => {
    const t = gateway();
    const smsc = await fakeSmsc();
    const definition = smppDefinition("dlt-submit", smsc, {
      error_codes: { "0x00000455": { reason: "dlt_header_inactive", description: "Header inactive (SMSC's code)" } },
    });
    expect((await admin("POST", "/carriers", definition)).status).toBe(201);
    await admin("PUT", "/routes", { route: "T", prefix: "", connectors: [{ name: "dlt-submit" }] });
    await applied();
    await until(async () => (await admin("GET", "/carriers/dlt-submit")).body.data.health.state === "up", 10_000);
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const hooks = await hookedAccount(account);
    const before = await milli(t, account.id);
    smsc.next(1, { status: 0x455 }).next(1, { status: 0x456 });
    const mapped = await send(account, "9876502001");
    const first = await waitForStatus(t, account, mapped);
    const unknown = await send(account, "9876502002");
    const second = await waitForStatus(t, account, unknown);
    expect(first.error).toMatchObject({
      code: "0x00000455",
      reason: "dlt_header_inactive",
      carrier_code: "0x00000455",
    });
    expect(first.error.message).toMatch(/^Header inactive \(SMSC's code\) \(carrier code 0x00000455\)\. /);
    expect(second.error).toEqual({ code: "0x00000456", message: expect.stringContaining("0x00000456") });
    await until(() => failedEvent(hooks, mapped) !== undefined);
    expect(JSON.stringify(failedEvent(hooks, mapped))).toContain('"reason":"dlt_header_inactive"');
    // Both refused before a carrier took them: both refunded, whatever REFUND_CARRIER_REASONS says.
    expect(await milli(t, account.id)).toBe(before);
  });

  it("maps an http-sms callback's error code, and keeps today's failure for a code no table knows", async () => {
    const t = gateway();
    const definition = aggregatorDefinition(aggregator.url, "dlt-http", {});
    const created = await admin("PUT", "/carriers/dlt-http", {
      ...definition,
      dlr: { ...(definition.dlr as object), error_code_field: "err" },
    });
    expect(created.status, created.text).toBe(201);
    await admin("PUT", "/routes", { route: "T", prefix: "", connectors: [{ name: "dlt-http" }] });
    await applied();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const hooks = await hookedAccount(account);
    const start = aggregator.requests.length;
    const mapped = await send(account, "9876501001");
    const unknown = await send(account, "9876501002");
    await until(() => aggregator.requests.length === start + 2);
    const upstream = async (id: string) =>
      (await t.db.store.db.selectFrom("messages").select("upstream_id").where("id", "=", id).executeTakeFirstOrThrow())
        .upstream_id!;
    const dlr = `${t.url}/carriers/http-sms/dlt-http/dlr`;
    for (const [id, err] of [
      [mapped, "631"],
      [unknown, "X42"],
    ] as const) {
      await waitForStatus(t, account, id, { until: (s) => s === "submitted" });
      const answer = await aggregator.callback(dlr, {
        method: "GET",
        query: { id: await upstream(id), status: "UNDELIV", err },
      });
      expect(answer.status, answer.text).toBeLessThan(300);
    }
    const first = await waitForStatus(t, account, mapped);
    expect(first.error).toMatchObject({ code: "631", reason: "dlt_template_inactive", carrier_code: "631" });
    expect(first.error.message).toContain("TEMPLATE_INACTIVE");
    const second = await waitForStatus(t, account, unknown);
    expect(second.status).toBe("failed");
    expect(second.error).toEqual({ code: "X42", message: expect.any(String) });
    await until(() => failedEvent(hooks, mapped) !== undefined);
    expect(JSON.stringify(failedEvent(hooks, mapped))).toContain('"reason":"dlt_template_inactive"');
    // dlt_template_inactive is not in the policy: nothing refunded.
    const refunds = await t.db.store.db
      .selectFrom("ledger_entries")
      .select("ref")
      .where("kind", "=", "refund")
      .where("ref", "in", [mapped, unknown])
      .execute();
    expect(refunds).toEqual([]);
  });

  it("shows and replaces a connector's table, and refuses bad ones naming the wrong entry", async () => {
    const smsc = await fakeSmsc();
    const definition = {
      name: "codes",
      type: "smpp",
      host: "127.0.0.1",
      port: smsc.port,
      system_id: smsc.systemId,
      password: smsc.password,
    };
    expect((await admin("POST", "/carriers", definition)).status).toBe(201);
    const shown = await admin("GET", "/carriers/codes/error-codes");
    expect(shown.status).toBe(200);
    expect(shown.body.data.codes).toContainEqual(
      expect.objectContaining({ code: "633", reason: "dlt_template_mismatch", source: "default" }),
    );
    const replaced = await admin("PUT", "/carriers/codes/error-codes", {
      codes: {
        "633": { reason: "dlt_scrubbing_failed", description: "Scrubbing (this operator)" },
        "E-17": { reason: "dlt_entity_blacklisted", description: "Entity blacklisted" },
      },
    });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body.data.codes).toContainEqual({
      code: "633",
      reason: "dlt_scrubbing_failed",
      description: "Scrubbing (this operator)",
      source: "connector",
    });
    expect((await admin("GET", "/carriers/codes")).body.data.definition.error_codes["E-17"].reason).toBe(
      "dlt_entity_blacklisted",
    );

    const refusals: [unknown, string][] = [
      [
        { "633": { reason: "no_such_reason", description: "x" } },
        "error_codes.633.reason must be a code of the error catalogue",
      ],
      [{ "63 3": { reason: "dlt_template_mismatch", description: "x" } }, '"63 3" is not a carrier code'],
      [{ "633": { reason: "dlt_template_mismatch" } }, "error_codes.633.description must be text"],
      [{ "633": { reason: "dlt_template_mismatch", description: "x", refund: true } }, "nothing else"],
      [["633"], "error_codes must be an object"],
    ];
    for (const [codes, says] of refusals) {
      const answer = await admin("PUT", "/carriers/codes/error-codes", { codes });
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body.error.code).toBe("invalid_request");
      expect(answer.body.message).toContain(says);
    }
    const inDefinition = await admin("PUT", "/carriers/codes", {
      ...definition,
      error_codes: { "633": { reason: "nope", description: "x" } },
    });
    expect(inDefinition.status).toBe(400);
    expect(inDefinition.body.message).toContain("Invalid smpp connector: error_codes.633.reason");
    expect((await admin("PUT", "/carriers/none-such/error-codes", { codes: {} })).status).toBe(404);
    // The stored table is unchanged by the refusals; an empty one leaves the default alone.
    expect((await admin("GET", "/carriers/codes")).body.data.definition.error_codes["633"].reason).toBe(
      "dlt_scrubbing_failed",
    );
    const cleared = await admin("PUT", "/carriers/codes/error-codes", { codes: {} });
    expect(cleared.body.data.codes.every((c: { source: string }) => c.source === "default")).toBe(true);

    // The carriers file takes the same table in a connector's definition, and refuses a bad one.
    const deps = { store: gateway().db.store, clock: gateway().clock };
    const own = { "E:4001": { reason: "dlt_header_inactive", description: "Header inactive (file)" } };
    await applyCarriersDocument(deps, { connectors: [{ ...definition, error_codes: own }] });
    const fromFile = await admin("GET", "/carriers/codes/error-codes");
    expect(fromFile.body.data.codes).toContainEqual({ code: "E:4001", ...own["E:4001"], source: "connector" });
    await expect(
      applyCarriersDocument(deps, {
        connectors: [{ ...definition, error_codes: { "633": { reason: "dlt_nothing", description: "x" } } }],
      }),
    ).rejects.toThrow(/error_codes\.633\.reason must be a code of the error catalogue/);
  });
});
