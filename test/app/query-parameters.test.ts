// The query strings of the v2 family (issue 37): every route that takes query parameters refuses
// one it does not know in words (the parameter in error.field, what the route takes in the
// message), never with a schema engine's sentence; the API key may ride in the query of any; the
// GET send ignores unknown parameters, as documented; the page-number lists take `per_page` with
// the spec's sizes where it gives them (templates 25 up to 100, a group's contacts 50 up to 200).
import { beforeAll, expect, it } from "vitest";
import { describeEachEngine } from "../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../helpers/gateway.js";
import { keyOf } from "../helpers/sms.js";

interface Operation {
  parameters?: Array<{ name: string; in: string }>;
}

describeEachEngine("v2 query parameters", (engine) => {
  const gateway = useTestGateway(engine);
  let account: TestAccount;

  beforeAll(async () => {
    account = await buildAccount(gateway());
  });

  it("refuses an unknown query parameter on every route that takes any, naming it and what the route takes", async () => {
    const t = gateway();
    const document = (await call(t, "GET", "/api/v2/openapi.json")).body as {
      paths: Record<string, Record<string, Operation>>;
    };
    const checked: string[] = [];
    for (const [path, operations] of Object.entries(document.paths)) {
      const get = operations.get;
      const names = (get?.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);
      if (!get || names.length === 0 || path === "/api/v2/sms/send") continue;
      const url = path.replace(/\{[^}]+\}/g, "1");
      const answer = await call(t, "GET", `${url}?${names[0]}=&colour=blue`, { headers: keyOf(account) });
      expect(answer.status, path).toBe(400);
      expect(answer.body.error, path).toMatchObject({ code: "invalid_request", field: "colour" });
      expect(answer.body.message, path).toBe(
        `Unknown query parameter "colour"; this endpoint takes: ${names.join(", ")}.`,
      );
      checked.push(path);
    }
    // The lists and filtered reads, all of them.
    expect(checked).toEqual(
      expect.arrayContaining([
        "/api/v2/messages",
        "/api/v2/templates",
        "/api/v2/groups",
        "/api/v2/groups/{id}/contacts",
        "/api/v2/bulk-jobs",
        "/api/v2/keywords",
        "/api/v2/inbound",
        "/api/v2/webhooks/deliveries",
        "/api/v2/email/templates",
        "/api/v2/sender-ids",
      ]),
    );
    // The key in the query is a credential, not an unknown parameter; without a key, 401 first.
    expect((await call(t, "GET", `/api/v2/templates?api_key=${account.apiKey}&per_page=5`)).status).toBe(200);
    expect((await call(t, "GET", "/api/v2/templates?colour=blue")).status).toBe(401);
  });

  it("refuses a repeated query parameter on every route that takes any, naming it (audit row 19)", async () => {
    const t = gateway();
    const document = (await call(t, "GET", "/api/v2/openapi.json")).body as {
      paths: Record<string, Record<string, Operation>>;
    };
    let checked = 0;
    for (const [path, operations] of Object.entries(document.paths)) {
      const names = (operations.get?.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);
      if (names.length === 0) continue;
      const url = path.replace(/\{[^}]+\}/g, "1");
      const name = names[names.length - 1]!;
      const answer = await call(t, "GET", `${url}?${name}=1&${name}=2`, { headers: keyOf(account) });
      expect(answer.status, path).toBe(400);
      expect(answer.body.error, path).toMatchObject({ code: "invalid_request", field: name });
      expect(answer.body.message, path).toBe(`Query parameter "${name}" is given more than once; give it once.`);
      checked++;
    }
    expect(checked).toBeGreaterThan(10);
  });

  it("lets the GET send ignore parameters it does not know, as documented", async () => {
    const t = gateway();
    const sender = await buildAccount(t, { credits: { sms: 5 } });
    await t.db.store.db.updateTable("accounts").set({ get_api_enabled: 1 }).where("id", "=", sender.id).execute();
    const query = new URLSearchParams({
      api_key: sender.apiKey,
      sender_id: "SWBRD",
      recipient: "9876543210",
      message: "Hello",
      colour: "blue",
    });
    const answer = await call(t, "GET", `/api/v2/sms/send?${query}`);
    expect(answer.status, answer.text).toBe(200);
  });

  it("refuses an offset beyond ±23:59 in from and to on every list that takes them, v2 and operator", async () => {
    const t = gateway();
    const document = (await call(t, "GET", "/api/v2/openapi.json")).body as {
      paths: Record<string, Record<string, Operation>>;
    };
    const v2Lists = Object.entries(document.paths)
      .filter(([, operations]) => operations.get?.parameters?.some((p) => p.in === "query" && p.name === "from"))
      .map(([path]) => path);
    expect(v2Lists).toEqual(
      expect.arrayContaining(["/api/v2/messages", "/api/v2/audit", "/api/v2/analytics/delivery", "/api/v2/refusals"]),
    );
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const lists: [string, TestAccount][] = [
      ...v2Lists.map((path): [string, TestAccount] => [path, account]),
      ...[
        "/admin/api/messages",
        "/admin/api/messages/export",
        "/admin/api/audit",
        "/admin/api/audit/export",
        "/admin/api/analytics/delivery",
        "/admin/api/analytics/margin",
        "/admin/api/refusals",
      ].map((path): [string, TestAccount] => [path, operator]),
    ];
    for (const [path, caller] of lists) {
      const headers = keyOf(caller);
      // The largest offsets there are: the window is read, not refused.
      const edge = `from=${encodeURIComponent("2026-12-01T00:00:00+23:59")}&to=${encodeURIComponent("2026-12-02T00:00:00-23:59")}`;
      const fine = await call(t, "GET", `${path}?${edge}`, { headers });
      expect(fine.status, `${path} ${fine.text}`).toBe(200);
      for (const bound of ["from", "to"]) {
        for (const offset of ["+25:00", "+99:99", "-24:00", "+05:60", "+2500"]) {
          const value = encodeURIComponent(`2026-12-01T00:00:00${offset}`);
          const refused = await call(t, "GET", `${path}?${bound}=${value}`, { headers });
          expect(refused.status, `${path} ${bound}=${offset}`).toBe(400);
          expect(refused.body.error, path).toMatchObject({ code: "invalid_request", field: bound });
          expect(refused.body.message, path).toContain(`"${bound}" must be an ISO 8601 date or date-time`);
        }
      }
    }
  });

  it("pages the spec's lists with per_page: templates 25 up to 100, a group's contacts 50 up to 200", async () => {
    const t = gateway();
    const headers = keyOf(account);
    const templates = await call(t, "GET", "/api/v2/templates", { headers });
    expect(templates.body.meta).toMatchObject({ page: 1, per_page: 25 });
    expect((await call(t, "GET", "/api/v2/templates?per_page=100", { headers })).body.meta.per_page).toBe(100);
    const tooMany = await call(t, "GET", "/api/v2/templates?per_page=101", { headers });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toMatchObject({ code: "invalid_request", field: "per_page" });
    expect(tooMany.body.message).toBe('Query parameter "per_page" must be a whole number 1 to 100.');

    const group = await call(t, "POST", "/api/v2/groups", { headers, json: { name: "paging" } });
    expect(group.status, group.text).toBe(201);
    const path = `/api/v2/groups/${group.body.data.id}/contacts`;
    expect((await call(t, "GET", path, { headers })).body.meta).toMatchObject({ page: 1, per_page: 50 });
    expect((await call(t, "GET", `${path}?per_page=200`, { headers })).body.meta.per_page).toBe(200);
    expect((await call(t, "GET", `${path}?per_page=201`, { headers })).body.error.field).toBe("per_page");
  });
});
