// The audit log filtered by the credential that acted (an auditor after a leaked key: everything
// that key did): `credential` on GET /admin/api/audit, GET /api/v2/audit and both exports, on both
// engines through the real server, as the entries name it (key:12) or a key's number alone; the
// same account's other key is not matched; a bad value is a 400 naming it.
import { beforeAll, expect, it } from "vitest";
import { describeEachEngine } from "../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../helpers/gateway.js";

describeEachEngine("audit log by credential", (engine) => {
  const gateway = useTestGateway(engine, { roles: ["api"] });
  let t: TestGateway;
  let operator: TestAccount;
  let shop: TestAccount;
  let opKey: Record<string, string>;
  let shopKey: Record<string, string>;
  let ownKey: number;
  let second: { id: number; key: Record<string, string> };

  beforeAll(async () => {
    t = gateway();
    operator = await buildAccount(t, { role: "operator", sender: null });
    shop = await buildAccount(t);
    opKey = { authorization: `Bearer ${operator.apiKey}` };
    shopKey = { authorization: `Bearer ${shop.apiKey}` };
    const keys = await call(t, "GET", "/api/v2/keys", { headers: shopKey });
    ownKey = keys.body.data[0].id as number;
    // The first key makes a second; the second renames itself and sets a webhook.
    const made = await call(t, "POST", "/api/v2/keys", { headers: shopKey, json: { name: "ci" } });
    expect(made.status, made.text).toBe(201);
    second = { id: made.body.data.id, key: { authorization: `Bearer ${made.body.data.api_key}` } };
    const renamed = await call(t, "PATCH", `/api/v2/keys/${second.id}`, {
      headers: second.key,
      json: { name: "ci 2" },
    });
    expect(renamed.status, renamed.text).toBe(200);
    const hooked = await call(t, "PUT", "/api/v2/webhooks", {
      headers: second.key,
      json: { delivery_report: "https://hooks.example.com/dlr" },
    });
    expect(hooked.status, hooked.text).toBe(200);
  });

  const actions = (answer: { status: number; text: string; body: { data: { action: string }[] } }) => {
    expect(answer.status, answer.text).toBe(200);
    return answer.body.data.map((entry) => entry.action);
  };

  it("lists what one key did, on the operator's log and the account's own", async () => {
    const byOperator = await call(t, "GET", `/admin/api/audit?credential=key:${second.id}`, { headers: opKey });
    expect(actions(byOperator)).toEqual(["webhooks.set", "key.update"]);
    expect(byOperator.body.data.every((entry: { credential: string }) => entry.credential === `key:${second.id}`)).toBe(
      true,
    );
    // A key's number alone is the same filter.
    const bare = await call(t, "GET", `/admin/api/audit?credential=${second.id}`, { headers: opKey });
    expect(actions(bare)).toEqual(["webhooks.set", "key.update"]);
    const own = await call(t, "GET", `/api/v2/audit?credential=key:${second.id}`, { headers: shopKey });
    expect(actions(own)).toEqual(["webhooks.set", "key.update"]);
    const first = await call(t, "GET", `/api/v2/audit?credential=key:${ownKey}`, { headers: shopKey });
    expect(actions(first)).toEqual(["key.create"]);
    const nobody = await call(t, "GET", "/api/v2/audit?credential=key:999999", { headers: shopKey });
    expect(actions(nobody)).toEqual([]);
  });

  it("exports what one key did", async () => {
    for (const path of [`/admin/api/audit/export`, `/api/v2/audit/export`]) {
      const answer = await call(t, "GET", `${path}?format=jsonl&credential=key:${second.id}`, {
        headers: path.startsWith("/admin") ? opKey : shopKey,
      });
      expect(answer.status, answer.text).toBe(200);
      const lines = answer.text
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as { action: string; credential: string });
      expect(lines.map((line) => line.action)).toEqual(["key.update", "webhooks.set"]);
    }
  });

  it("refuses a bad credential, naming it", async () => {
    for (const value of ["key%3A1%00", "k".repeat(201)]) {
      for (const [path, headers] of [
        ["/admin/api/audit", opKey],
        ["/api/v2/audit", shopKey],
        ["/api/v2/audit/export", shopKey],
      ] as const) {
        const answer = await call(t, "GET", `${path}?credential=${value}`, { headers });
        expect(answer.status, `${path} ${answer.text}`).toBe(400);
        expect(answer.body.error).toMatchObject({ code: "invalid_request", field: "credential" });
      }
    }
  });
});
