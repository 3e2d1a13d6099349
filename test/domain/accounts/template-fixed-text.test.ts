// A template that is only variables ({#var#}, or variables with whitespace and punctuation) would
// match any text, and DLT rejects it (TRAI audit, item 3). Through the real server on both engines:
// v2 POST /api/v2/templates answers 400 invalid_request (field content), the legacy addtemplate -8
// with the reason in X-Error-Message, the operator API 400; a template with fixed text is taken.
import { beforeAll, expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { credentials, legacy } from "../../helpers/legacy.js";
import { keyOf } from "../../helpers/sms.js";

const ONLY_VARIABLES = ["{#var#}", "{#VAR#}", " {#var#} {#var#}. ", "{#var#}: {#var#}!", "{#var#}\n-{#var#}"];
const REASON = "Template content needs fixed text (letters or digits) besides its {#var#} parts";

describeEachEngine("templates: fixed text besides the variables", (engine) => {
  const gateway = useTestGateway(engine, { env: { LEGACY_THROTTLE_PER_SECOND: "0" } });
  let operator: TestAccount;
  let account: TestAccount;
  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
    account = await buildAccount(gateway());
  });

  it("refuses a template of variables only, on v2, legacy addtemplate and the operator API", async () => {
    const t = gateway();
    for (const content of ONLY_VARIABLES) {
      const v2 = await call(t, "POST", "/api/v2/templates", {
        headers: keyOf(account),
        json: { name: "any", content },
      });
      expect(v2.status, JSON.stringify(content)).toBe(400);
      expect(v2.body.error).toMatchObject({ code: "invalid_request", field: "content" });
      expect(v2.body.message).toContain(REASON);
      const added = await legacy(t, "/httpapi/addtemplate", {
        ...credentials(account),
        sender_id: "SWBRD",
        template_name: "any",
        template_message: content,
        dlt_template_id: "1107160000000000099",
      });
      expect(added.text, JSON.stringify(content)).toBe("-8");
      expect(added.headers.get("x-error-message")).toContain(REASON);
      const made = await call(t, "POST", `/admin/api/accounts/${account.username}/templates`, {
        headers: { authorization: `Bearer ${operator.apiKey}` },
        json: { name: "any", content, approve: true },
      });
      expect(made.status, JSON.stringify(content)).toBe(400);
    }
    const rows = await t.db.store.db
      .selectFrom("templates")
      .select("id")
      .where("account_id", "=", account.id)
      .execute();
    expect(rows).toEqual([]);
  });

  it("takes a template with fixed text, even a single digit or a word in another script", async () => {
    const t = gateway();
    for (const content of ["OTP {#var#}", "{#var#} 1", "कोड {#var#}"]) {
      const v2 = await call(t, "POST", "/api/v2/templates", { headers: keyOf(account), json: { name: "ok", content } });
      expect(v2.status, v2.text).toBe(201);
    }
  });
});
