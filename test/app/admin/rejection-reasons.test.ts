// A rejection's reason on every kind of the approval queue beyond sender IDs and templates
// (request-decisions.test.ts): keywords, DLT entity IDs, headers, links and callback numbers,
// voice caller numbers and email domains. The operator's reject takes an optional `reason`
// (trimmed, at most 500 characters, named as the field when refused), the decision's audit entry
// keeps it, and the account reads it as `rejection_reason` where it reads that item's status;
// an approval clears it.
import { beforeAll, expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type JsonResponse, type TestAccount, useTestGateway } from "../../helpers/gateway.js";

describeEachEngine("rejection reasons of keywords, DLT requests, caller numbers and email domains", (engine) => {
  const gateway = useTestGateway(engine);
  let operator: TestAccount;
  let shop: TestAccount;

  const as = (who: TestAccount) => (method: string, path: string, json?: unknown) =>
    call(gateway(), method, path, {
      headers: { authorization: `Bearer ${who.apiKey}` },
      ...(json !== undefined ? { json } : {}),
    });
  const ok = (response: JsonResponse, status = 200) => {
    expect(response.status, response.text).toBe(status);
    return response.body;
  };

  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
    shop = await buildAccount(gateway(), { credits: { sms: 100, voice: 10, email: 10 } });
  });

  it("keeps each kind's reason for the account, audits it and refuses a bad one naming the field", async () => {
    const a = as(shop);
    const op = as(operator);
    const entityId = "1101160000000000077";
    const keyword = ok(await a("POST", "/api/v2/keywords", { key: "promo", response_type: "none" }), 201).data;
    const entity = ok(await a("POST", "/api/v2/dlt/entities", { entity_id: entityId }), 201).data;
    const header = ok(await a("POST", "/api/v2/dlt/headers", { header: "SHOPPY" }), 201).data;
    const url = ok(
      await a("POST", "/api/v2/dlt/urls", { entity_id: entityId, url: "https://shop.example/x" }),
      201,
    ).data;
    const callback = ok(
      await a("POST", "/api/v2/dlt/callbacks", { entity_id: entityId, number: "1800 123 4567" }),
      201,
    ).data;
    const caller = ok(await a("POST", "/api/v2/voice/caller-ids", { number: "080 4711 0077" }), 201).data;
    ok(await a("POST", "/api/v2/email/domains", { domain: "mail.shop.example" }), 201);

    const decide = [
      ["keyword", `/admin/api/keywords/${keyword.id}`],
      ["dlt_entity", `/admin/api/dlt/entities/${entity.id}`],
      ["dlt_header", `/admin/api/dlt/headers/${header.id}`],
      ["dlt_url", `/admin/api/dlt/urls/${url.id}`],
      ["dlt_callback", `/admin/api/dlt/callbacks/${callback.id}`],
      ["voice_caller_id", `/admin/api/voice/caller-ids/${caller.id}`],
    ] as const;
    for (const [kind, path] of decide) {
      // Unknown fields, a reason on an approval, an over-long reason: refused, nothing decided.
      const unknown = await op("POST", `${path}/reject`, { foo: 1, reason: "x" });
      expect(unknown.status, kind).toBe(400);
      expect(unknown.text, kind).toContain("foo");
      expect((await op("POST", `${path}/approve`, { reason: "x" })).status, kind).toBe(400);
      const long = await op("POST", `${path}/reject`, { reason: "x".repeat(501) });
      expect(long.status, kind).toBe(400);
      expect(long.body.error, kind).toMatchObject({ code: "invalid_request", field: "reason" });
      const nul = await op("POST", `${path}/reject`, { reason: "a\u0000b" });
      expect(nul.body.error, kind).toMatchObject({ code: "invalid_request", field: "reason" });

      const rejected = ok(await op("POST", `${path}/reject`, { reason: `  Not for ${kind}.  ` })).data;
      expect(rejected, kind).toMatchObject({ status: "rejected", rejection_reason: `Not for ${kind}.` });
      const [entry] = ok(await op("GET", `/admin/api/audit?account=${shop.username}&action=${kind}.reject`)).data;
      expect(entry, kind).toMatchObject({
        actor: operator.username,
        channel: "operator_api",
        before: { status: "pending" },
        after: { status: "rejected", rejection_reason: `Not for ${kind}.` },
      });
    }
    const email = `/admin/api/accounts/${shop.username}/email/domains/mail.shop.example`;
    const wrong = await op("PUT", email, { status: "approved", reason: "x" });
    expect(wrong.body.error).toMatchObject({ code: "invalid_request", field: "reason" });
    const tooLong = await op("PUT", email, { status: "rejected", reason: "x".repeat(501) });
    expect(tooLong.body.error).toMatchObject({ code: "invalid_request", field: "reason" });
    const domain = ok(await op("PUT", email, { status: "rejected", reason: "No SPF record." })).data;
    expect(domain).toMatchObject({ status: "rejected", rejection_reason: "No SPF record." });
    const [domainEntry] = ok(
      await op("GET", `/admin/api/audit?account=${shop.username}&action=email_domain.reject`),
    ).data;
    expect(domainEntry).toMatchObject({ after: { status: "rejected", rejection_reason: "No SPF record." } });

    // The account reads each reason where it reads the item's status.
    expect(ok(await a("GET", `/api/v2/keywords/${keyword.id}`)).data).toMatchObject({
      status: "rejected",
      rejection_reason: "Not for keyword.",
    });
    const dlt = ok(await a("GET", "/api/v2/dlt")).data;
    expect(dlt.entities[0]).toMatchObject({ id: entity.id, rejection_reason: "Not for dlt_entity." });
    expect(dlt.headers[0]).toMatchObject({ id: header.id, rejection_reason: "Not for dlt_header." });
    expect(dlt.urls[0]).toMatchObject({ id: url.id, rejection_reason: "Not for dlt_url." });
    expect(dlt.callbacks[0]).toMatchObject({ id: callback.id, rejection_reason: "Not for dlt_callback." });
    expect(ok(await a("GET", "/api/v2/voice/caller-ids")).data[0]).toMatchObject({
      status: "rejected",
      rejection_reason: "Not for voice_caller_id.",
    });
    expect(ok(await a("GET", "/api/v2/email/domains")).data[0]).toMatchObject({
      status: "rejected",
      rejection_reason: "No SPF record.",
    });

    // Rejected without a body: no reason; approved after all: the reason is gone.
    const bare = await call(gateway(), "POST", `/admin/api/keywords/${keyword.id}/reject`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
    });
    expect(bare.status, bare.text).toBe(200);
    expect(bare.body.data.rejection_reason).toBeNull();
    for (const [kind, path] of decide.slice(1)) {
      expect(ok(await op("POST", `${path}/approve`)).data, kind).toMatchObject({
        status: "approved",
        rejection_reason: null,
      });
    }
    expect(ok(await op("PUT", email, { status: "approved" })).data.rejection_reason).toBeNull();
  });

  it("audits a domain put back to pending as email_domain.set_status, not as a rejection", async () => {
    const op = as(operator);
    ok(await as(shop)("POST", "/api/v2/email/domains", { domain: "news.shop.example" }), 201);
    const email = `/admin/api/accounts/${shop.username}/email/domains/news.shop.example`;
    ok(await op("PUT", email, { status: "approved" }));
    const rejectsBefore = ok(await op("GET", `/admin/api/audit?account=${shop.username}&action=email_domain.reject`));
    expect(ok(await op("PUT", email, { status: "pending" })).data).toMatchObject({ status: "pending" });
    const [entry] = ok(
      await op("GET", `/admin/api/audit?account=${shop.username}&action=email_domain.set_status`),
    ).data;
    expect(entry).toMatchObject({
      target: expect.stringContaining("news.shop.example"),
      before: { status: "approved" },
      after: { status: "pending", rejection_reason: null },
    });
    const rejectsAfter = ok(await op("GET", `/admin/api/audit?account=${shop.username}&action=email_domain.reject`));
    expect(rejectsAfter.data).toHaveLength(rejectsBefore.data.length);
  });
});
