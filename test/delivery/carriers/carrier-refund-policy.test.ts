// One carrier code set or removed (PUT|DELETE /admin/api/carriers/{name}/error-codes/{code}) and the
// refund policy per reason (/admin/api/refund-policy) through the real server, on both engines:
// refusals in words (never a 500), changes made at once by many callers all kept, each change in
// the audit log, and a receipt refunded as the operator's choice says over REFUND_CARRIER_REASONS.
import { expect, it } from "vitest";
import { until } from "../../channels/smpp-server/client.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { milli } from "../../helpers/resellers.js";
import { sendFailedWith, smppDefinition } from "./carrier-api.js";
import { fakeSmsc } from "./smpp-helpers.js";

describeEachEngine("a carrier's codes one by one, and the refund policy per reason", (engine) => {
  const gateway = useTestGateway(engine, { env: { REFUND_CARRIER_REASONS: "dlt_template_mismatch" } });
  let operator: TestAccount | undefined;
  const admin = async (method: string, path: string, json?: unknown) => {
    const t = gateway();
    operator ??= await buildAccount(t, { role: "operator", sender: null });
    return call(t, method, `/admin/api${path}`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      ...(json !== undefined ? { json } : {}),
    });
  };
  const audited = async (action: string) =>
    (
      await gateway()
        .db.store.db.selectFrom("audit_log")
        .select(["target", "before", "after"])
        .where("action", "=", action)
        .execute()
    ).map((row) => ({
      ...row,
      before: row.before && JSON.parse(row.before),
      after: row.after && JSON.parse(row.after),
    }));

  it("sets and removes one code of a connector, keeps every change made at once, and refuses in words", async () => {
    const definition = {
      name: "codes-one",
      type: "smpp",
      host: "127.0.0.1",
      port: 2775,
      system_id: "a",
      password: "p",
    };
    expect((await admin("POST", "/carriers", definition)).status).toBe(201);
    const set = await admin("PUT", "/carriers/codes-one/error-codes/E:17", {
      reason: "dlt_entity_blacklisted",
      description: "Entity blacklisted (ours)",
    });
    expect(set.status, set.text).toBe(200);
    expect(set.body.data.codes).toContainEqual({
      code: "E:17",
      reason: "dlt_entity_blacklisted",
      description: "Entity blacklisted (ours)",
      source: "connector",
    });
    // Twenty codes at once, each read and written in its own transaction: none lost.
    const codes = Array.from({ length: 20 }, (_, i) => `X${i}`);
    const answers = await Promise.all(
      codes.map((code) =>
        admin("PUT", `/carriers/codes-one/error-codes/${code}`, { reason: "dlt_scrubbing_failed", description: code }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(codes.map(() => 200));
    const own = (await admin("GET", "/carriers/codes-one")).body.data.definition.error_codes;
    expect(Object.keys(own).sort()).toEqual(["E:17", ...codes].sort());

    const removed = await admin("DELETE", "/carriers/codes-one/error-codes/E:17");
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body.data.codes.some((c: { code: string }) => c.code === "E:17")).toBe(false);
    // Overriding a default code and removing the override gives the default back.
    await admin("PUT", "/carriers/codes-one/error-codes/633", { reason: "dlt_scrubbing_failed", description: "Ours" });
    const back = await admin("DELETE", "/carriers/codes-one/error-codes/633");
    expect(back.body.data.codes).toContainEqual(
      expect.objectContaining({ code: "633", reason: "dlt_template_mismatch", source: "default" }),
    );

    const refusals: [string, string, unknown, number, string][] = [
      [
        "PUT",
        "/carriers/codes-one/error-codes/63%203",
        { reason: "dlt_template_mismatch", description: "x" },
        400,
        '"63 3" is not a carrier code',
      ],
      [
        "PUT",
        "/carriers/codes-one/error-codes/633",
        { reason: "nope", description: "x" },
        400,
        "reason must be a code of the error catalogue",
      ],
      [
        "PUT",
        "/carriers/codes-one/error-codes/633",
        { reason: "dlt_template_mismatch" },
        400,
        "description must be text",
      ],
      [
        "PUT",
        "/carriers/codes-one/error-codes/633",
        { reason: "dlt_template_mismatch", description: "x", refund: true },
        400,
        "refund",
      ],
      [
        "DELETE",
        "/carriers/codes-one/error-codes/633",
        undefined,
        404,
        "does not map the code 633 itself (the default table does",
      ],
      ["DELETE", "/carriers/codes-one/error-codes/E:99", undefined, 404, "does not map the code E:99 itself."],
      [
        "PUT",
        "/carriers/none-such/error-codes/633",
        { reason: "dlt_template_mismatch", description: "x" },
        404,
        "No connector named none-such",
      ],
    ];
    for (const [method, path, body, status, says] of refusals) {
      const answer = await admin(method, path, body);
      expect(answer.status, `${method} ${path}: ${answer.text}`).toBe(status);
      expect(answer.body.message, path).toContain(says);
    }
    expect(Object.keys((await admin("GET", "/carriers/codes-one")).body.data.definition.error_codes)).toHaveLength(20);

    const entries = await audited("carrier.error_code.set");
    expect(entries).toContainEqual({
      target: "code E:17 of carrier codes-one",
      before: null,
      after: { reason: "dlt_entity_blacklisted", description: "Entity blacklisted (ours)" },
    });
    expect(await audited("carrier.error_code.remove")).toContainEqual(
      expect.objectContaining({ target: "code E:17 of carrier codes-one", after: null }),
    );
    // The whole table's PUT is audited too (carrier.save), as every change of a connector.
    const before = (await audited("carrier.save")).length;
    expect((await admin("PUT", "/carriers/codes-one/error-codes", { codes: {} })).status).toBe(200);
    expect(await audited("carrier.save")).toHaveLength(before + 1);
  });

  it("shows each reason's refund and where it comes from, and changes it by reason, refusing in words", async () => {
    const shown = await admin("GET", "/refund-policy");
    expect(shown.status, shown.text).toBe(200);
    expect(shown.body.data.default_reasons).toEqual(["dlt_template_mismatch"]);
    const row = (answer: typeof shown, reason: string) =>
      answer.body.data.reasons.find((r: { reason: string }) => r.reason === reason);
    expect(row(shown, "dlt_template_mismatch")).toMatchObject({ refund: true, source: "default" });
    expect(row(shown, "dlt_header_inactive")).toMatchObject({
      refund: false,
      source: "default",
      description: expect.stringContaining("header"),
    });

    const chosen = await admin("PUT", "/refund-policy/dlt_header_inactive", { refund: true });
    expect(chosen.status, chosen.text).toBe(200);
    expect(row(chosen, "dlt_header_inactive")).toMatchObject({ refund: true, source: "operator" });
    const kept = await admin("PUT", "/refund-policy/dlt_template_mismatch", { refund: false });
    expect(row(kept, "dlt_template_mismatch")).toMatchObject({ refund: false, source: "operator" });
    // A reason of the catalogue no table maps yet is listed once chosen.
    const other = await admin("PUT", "/refund-policy/dlt_chain_missing", { refund: true });
    expect(row(other, "dlt_chain_missing")).toMatchObject({ refund: true, source: "operator" });
    const given = await admin("DELETE", "/refund-policy/dlt_chain_missing");
    expect(row(given, "dlt_chain_missing")).toBeUndefined();

    const refusals: [string, string, unknown, number, string][] = [
      [
        "PUT",
        "/refund-policy/dlt_nothing",
        { refund: true },
        400,
        '"dlt_nothing" is not a reason of the error catalogue',
      ],
      ["PUT", "/refund-policy/dlt_header_inactive", { refund: "yes" }, 400, "refund"],
      ["PUT", "/refund-policy/dlt_header_inactive", {}, 400, "refund"],
      [
        "DELETE",
        "/refund-policy/dlt_consent_missing",
        undefined,
        404,
        "no choice of the operator for dlt_consent_missing to remove",
      ],
      ["DELETE", "/refund-policy/dlt_nothing", undefined, 400, "is not a reason of the error catalogue"],
    ];
    for (const [method, path, body, status, says] of refusals) {
      const answer = await admin(method, path, body);
      expect(answer.status, `${method} ${path}: ${answer.text}`).toBe(status);
      expect(answer.body.message, path).toContain(says);
    }
    expect(await audited("refund_policy.set")).toContainEqual({
      target: "refund policy of dlt_template_mismatch",
      before: null,
      after: { refund: false },
    });
    expect(await audited("refund_policy.remove")).toContainEqual({
      target: "refund policy of dlt_chain_missing",
      before: { refund: true },
      after: null,
    });
  });

  it("refunds a receipt's failure as the operator's choice says, over REFUND_CARRIER_REASONS", async () => {
    const t = gateway();
    const smsc = await fakeSmsc();
    expect((await admin("POST", "/carriers", smppDefinition("refunds-smsc", smsc))).status).toBe(201);
    await admin("PUT", "/routes", { route: "T", prefix: "", connectors: [{ name: "refunds-smsc" }] });
    await t.gateway.workers!.carriers.reload();
    await until(async () => (await admin("GET", "/carriers/refunds-smsc")).body.data.health.state === "up", 10_000);
    // The previous test chose: dlt_header_inactive refunded, dlt_template_mismatch (the default's) not.
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const failWith = (recipient: string, err: string) => sendFailedWith(t, account, smsc, recipient, err);
    const start = await milli(t, account.id);
    const inactive = await failWith("9876503001", "621");
    expect(inactive.error).toMatchObject({ reason: "dlt_header_inactive", carrier_code: "621" });
    expect(await milli(t, account.id)).toBe(start);
    const mismatch = await failWith("9876503002", "633");
    expect(mismatch.error).toMatchObject({ reason: "dlt_template_mismatch", carrier_code: "633" });
    const cost = start - (await milli(t, account.id));
    expect(cost).toBeGreaterThan(0);
    // The choice removed, REFUND_CARRIER_REASONS refunds dlt_template_mismatch again.
    expect((await admin("DELETE", "/refund-policy/dlt_template_mismatch")).status).toBe(200);
    await failWith("9876503003", "633");
    expect(start - (await milli(t, account.id))).toBe(cost);
    await admin("DELETE", "/routes?route=T&prefix=");
  });
});
