// A dlt_template_id is checked on every route (black-box audit of TRAI's rules, item 1): on a
// promotional send it must be one of the account's approved templates and the text must match it
// (v2 422 dlt_template_mismatch, legacy -8), never passed on unchecked. And the operator's
// DLT_TEMPLATES_ALL_ROUTES (default off) holds promotional text to an approved template as
// transactional text is. Through the real server on both engines.
import { beforeAll, expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { credentials, legacy, operatorCall } from "../../helpers/legacy.js";
import { balanceOf, FAST_SIMULATOR, keyOf } from "../../helpers/sms.js";

const ENTITY = "1101160000000000001";
const SALE_TEMPLATE = "1107160000000000021";
const SALE = "Sale today: {#var#} off.";

/** Scrubbing on, header SWBRD and entity ENTITY white-listed, one approved promotional template. */
async function dltAccount(t: TestGateway, operator: TestAccount): Promise<TestAccount> {
  const account = await buildAccount(t, { dltScrubbing: true, credits: { sms: 1000 } });
  const op = (method: string, path: string, json?: unknown) => operatorCall(t, operator, method, path, json);
  const u = account.username;
  await op("POST", `/accounts/${u}/dlt/headers`, { header: "SWBRD" });
  await op("POST", `/accounts/${u}/dlt/entities`, { entity_id: ENTITY });
  await op("PATCH", `/accounts/${u}`, { default_dlt_entity_id: ENTITY });
  const made = await op("POST", `/accounts/${u}/templates`, {
    name: "sale",
    content: SALE,
    dlt_template_id: SALE_TEMPLATE,
    approve: true,
  });
  expect(made.status).toBeLessThan(300);
  return account;
}

function promotional(t: TestGateway, account: TestAccount, message: string, extra: Record<string, unknown> = {}) {
  return call(t, "POST", "/api/v2/sms/send", {
    headers: keyOf(account),
    json: { sender_id: "PROMOTIONAL", route: "promotional", recipient: "9876543210", message, ...extra },
  });
}

describeEachEngine("a dlt_template_id on a promotional send", (engine) => {
  const gateway = useTestGateway(engine, { env: { ...FAST_SIMULATOR, LEGACY_THROTTLE_PER_SECOND: "0" } });
  let operator: TestAccount;
  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
  });

  it("refuses an id that is not the account's, or text that is not its template's, charging nothing", async () => {
    const t = gateway();
    const account = await dltAccount(t, operator);
    const before = await balanceOf(t, account);
    const unknown = await promotional(t, account, "Sale today", { dlt_template_id: "999" });
    expect(unknown.status, unknown.text).toBe(422);
    expect(unknown.body.error).toMatchObject({ code: "dlt_template_mismatch", dlt_template_id: "999" });
    expect(unknown.body.message).toContain("The dlt_template_id 999 is not an approved template of the account");
    const other = await promotional(t, account, "Sale today", { dlt_template_id: SALE_TEMPLATE });
    expect(other.status, other.text).toBe(422);
    expect(other.body.error).toMatchObject({ code: "dlt_template_mismatch", dlt_template_id: SALE_TEMPLATE });
    expect(other.body.message).toContain(`Content sent with dlt_template_id ${SALE_TEMPLATE} must match`);
    for (const [templateid, message] of [
      ["999", "Sale today"],
      [SALE_TEMPLATE, "Sale today"],
    ]) {
      const answer = await legacy(t, "/httpapi/send", {
        ...credentials(account),
        sender_id: "PROMOTIONAL",
        route: "P",
        phonenumber: "9876543210",
        message,
        templateid,
      });
      expect(answer.text, templateid).toBe("-8");
      expect(answer.headers.get("x-error-message")).toContain("dlt_template_id");
    }
    expect(await balanceOf(t, account)).toBe(before);
  });

  it("sends text matching the id's template with it, and promotional text naming no id as before", async () => {
    const t = gateway();
    const account = await dltAccount(t, operator);
    const ok = await promotional(t, account, "Sale today: 20% off.", { dlt_template_id: SALE_TEMPLATE });
    expect(ok.status, ok.text).toBe(200);
    const free = await promotional(t, account, "Sale today");
    expect(free.status, free.text).toBe(200);
    const rows = await t.db.store.db
      .selectFrom("messages")
      .select(["body", "dlt_template_id", "dlt_scrub"])
      .where("account_id", "=", account.id)
      .orderBy("id")
      .execute();
    expect(rows).toEqual([
      { body: "Sale today: 20% off.", dlt_template_id: SALE_TEMPLATE, dlt_scrub: "matched" },
      { body: "Sale today", dlt_template_id: null, dlt_scrub: "unmatched" },
    ]);
  });
});

describeEachEngine("DLT_TEMPLATES_ALL_ROUTES", (engine) => {
  const gateway = useTestGateway(engine, {
    env: { ...FAST_SIMULATOR, LEGACY_THROTTLE_PER_SECOND: "0", DLT_TEMPLATES_ALL_ROUTES: "1" },
  });
  let operator: TestAccount;
  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
  });

  it("holds promotional text to an approved template (v2 422, legacy -8), and sends text that matches", async () => {
    const t = gateway();
    const account = await dltAccount(t, operator);
    const before = await balanceOf(t, account);
    const refused = await promotional(t, account, "Sale today");
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.error).toMatchObject({ code: "dlt_template_mismatch" });
    expect(refused.body.message).toContain("Promotional content (the operator's DLT_TEMPLATES_ALL_ROUTES) must match");
    const answer = await legacy(t, "/httpapi/send", {
      ...credentials(account),
      sender_id: "PROMOTIONAL",
      route: "P",
      phonenumber: "9876543210",
      message: "Sale today",
    });
    expect(answer.text).toBe("-8");
    expect(await balanceOf(t, account)).toBe(before);
    const ok = await promotional(t, account, "Sale today: 20% off.");
    expect(ok.status, ok.text).toBe(200);
    const row = await t.db.store.db
      .selectFrom("messages")
      .select(["dlt_template_id", "dlt_scrub"])
      .where("account_id", "=", account.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ dlt_template_id: SALE_TEMPLATE, dlt_scrub: "matched" });
  });
});
