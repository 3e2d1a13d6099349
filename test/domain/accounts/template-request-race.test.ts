// Decision 0144 answers a template asked for again as it stands; its check was a read in the
// request's transaction, so identical requests at the same instant on PostgreSQL could each see
// none and make two. Now a request takes its account's template lock first (an advisory lock on
// PostgreSQL; SQLite's writes are serial): 20 identical POSTs at once make exactly one template.
import { beforeAll, expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { keyOf } from "../../helpers/sms.js";

describeEachEngine("identical template requests at once", (engine) => {
  const gateway = useTestGateway(engine);
  let shop: TestAccount;

  beforeAll(async () => {
    shop = await buildAccount(gateway());
  });

  it("make one template: one 201, every other request answered with it (200)", async () => {
    const body = {
      name: "otp",
      content: "Your code is {#var#}. Do not share it.",
      dlt_template_id: "1107160000000000144",
    };
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        call(gateway(), "POST", "/api/v2/templates", { headers: keyOf(shop), json: body }),
      ),
    );
    for (const answer of answers) expect([200, 201], answer.text).toContain(answer.status);
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(new Set(answers.map((a) => a.body.data.id)).size).toBe(1);
    const rows = await gateway()
      .db.store.db.selectFrom("templates")
      .select("id")
      .where("account_id", "=", shop.id)
      .execute();
    expect(rows).toHaveLength(1);
    const audit = await gateway()
      .db.store.db.selectFrom("audit_log")
      .select("seq")
      .where("account_id", "=", shop.id)
      .where("action", "=", "template.request")
      .execute();
    expect(audit).toHaveLength(1);
  });
});
