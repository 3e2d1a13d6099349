// Every whole number a request carries (ids in paths and bodies, pages, limits) is bounded, so a
// value past what the database's bigint or an offset holds (2^63, 1e20) is the family's
// validation error, never a query PostgreSQL refuses with "out of range" (a 500). Through the
// real server, one row per field, on both engines.
import { beforeAll, expect, it } from "vitest";
import { updateWhatsAppSettings } from "../../src/channels/whatsapp/settings.js";
import { describeEachEngine } from "../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../helpers/gateway.js";
import { FAST_SIMULATOR, keyOf } from "../helpers/sms.js";

/** Written into the request as they stand: JSON number literals, or path and query text. */
const OUT_OF_RANGE = ["9223372036854775808", "100000000000000000000", "-1"] as const;

type Family = "sms" | "v2" | "operator";

interface Row {
  family: Family;
  method: string;
  /** `{n}` is the value, `{u}` the customer's username. */
  path: string;
  /** A JSON body as text, with `{n}` where the value goes. */
  body?: string;
  /** The field the answer names. */
  field: string;
  /** 400 unless the route documents another answer for a malformed value (404: a v2 path id). */
  status?: number;
}

const SEND = '"sender_id":"SWBRD","message":"Hi"';

const ROWS: Row[] = [
  // v2 SMS calls ({ success: false, error }).
  { family: "sms", method: "POST", path: "/api/v2/sms/bulk", body: `{${SEND},"group_id":{n}}`, field: "group_id" },
  {
    family: "sms",
    method: "POST",
    path: "/api/v2/sms/bulk",
    body: `{${SEND},"recipients":["9876543210"],"job_id":{n}}`,
    field: "job_id",
  },
  // v2 resource calls ({ status: "error", error }).
  {
    family: "v2",
    method: "POST",
    path: "/api/v2/email/send",
    body: '{"from":"a@example.com","to":"b@example.com","subject":"S","text":"T","template_id":{n}}',
    field: "template_id",
  },
  { family: "v2", method: "POST", path: "/api/v2/whatsapp/send", body: '{"to":{n},"message":"Hi"}', field: "to" },
  { family: "v2", method: "GET", path: "/api/v2/messages?job_id={n}", field: "job_id" },
  { family: "v2", method: "GET", path: "/api/v2/bulk-jobs?page={n}", field: "page" },
  { family: "v2", method: "GET", path: "/api/v2/groups?page={n}", field: "page" },
  { family: "v2", method: "GET", path: "/api/v2/bulk-jobs/{n}", field: "id", status: 404 },
  { family: "v2", method: "GET", path: "/api/v2/groups/{n}/contacts", field: "id", status: 404 },
  // The operator API ({ status: "error", error }).
  { family: "operator", method: "GET", path: "/admin/api/accounts?page={n}", field: "page" },
  { family: "operator", method: "GET", path: "/admin/api/approvals?page={n}", field: "page" },
  { family: "operator", method: "GET", path: "/admin/api/accounts/{u}/templates?page={n}", field: "page" },
  { family: "operator", method: "GET", path: "/admin/api/accounts/{u}/keywords?page={n}", field: "page" },
  { family: "operator", method: "GET", path: "/admin/api/accounts/{u}/suppressions?page={n}", field: "page" },
  {
    family: "operator",
    method: "POST",
    path: "/admin/api/accounts",
    body: '{"username":"bounds_new","password":"a-long-password-1","flood_limit":{n}}',
    field: "flood_limit",
  },
  {
    family: "operator",
    method: "PATCH",
    path: "/admin/api/accounts/{u}",
    body: '{"flood_limit":{n}}',
    field: "flood_limit",
  },
  { family: "operator", method: "DELETE", path: "/admin/api/keys/{n}", field: "id" },
  { family: "operator", method: "PATCH", path: "/admin/api/keys/{n}", body: '{"rate_limit":10}', field: "id" },
  { family: "operator", method: "POST", path: "/admin/api/sender-ids/{n}/approve", field: "id" },
  { family: "operator", method: "POST", path: "/admin/api/templates/{n}/reject", field: "id" },
  { family: "operator", method: "POST", path: "/admin/api/dlt/entities/{n}/approve", field: "id" },
  { family: "operator", method: "POST", path: "/admin/api/dlt/headers/{n}/reject", field: "id" },
  { family: "operator", method: "POST", path: "/admin/api/keywords/{n}/approve", field: "id" },
  { family: "operator", method: "POST", path: "/admin/api/voice/caller-ids/{n}/approve", field: "id" },
  { family: "operator", method: "GET", path: "/admin/api/email/inbox?before_id={n}", field: "before_id" },
  { family: "operator", method: "GET", path: "/admin/api/email/inbox/{n}", field: "id" },
];

describeEachEngine("integer bounds", (engine) => {
  const gateway = useTestGateway(engine, { env: FAST_SIMULATOR });
  let customer: TestAccount;
  let operator: TestAccount;

  beforeAll(async () => {
    customer = await buildAccount(gateway(), { credits: { sms: 10, email: 10, whatsapp: 10 } });
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
    // On, so a value the schema let through would reach the recipient check, not the module's 403.
    await updateWhatsAppSettings(gateway().db.store.db, gateway().clock, customer.id, { enabled: true });
  });

  it.each(ROWS)("$method $path ($field): 2^63, 1e20 and -1 are the family's validation error", async (row) => {
    const t = gateway();
    const key = row.family === "operator" ? operator : customer;
    for (const value of OUT_OF_RANGE) {
      const fill = (text: string) => text.replaceAll("{n}", value).replaceAll("{u}", customer.username);
      const path = fill(row.path);
      const answer = await call(t, row.method, path, {
        headers: { ...keyOf(key), ...(row.body ? { "content-type": "application/json" } : {}) },
        ...(row.body ? { body: fill(row.body) } : {}),
      });
      const expected = row.status ?? 400;
      expect(answer.status, `${path} ${answer.text}`).toBe(expected);
      const head = row.family === "sms" ? { success: false } : { status: "error" };
      expect(answer.body, path).toMatchObject({
        ...head,
        error: { code: expected === 404 ? "not_found" : "invalid_request" },
      });
      if (expected === 400) expect(answer.body.message, path).toContain(row.field);
    }
  });

  it("takes the largest value each bound allows: an id of 2^53 - 1 is unknown, page 1,000,000 is empty", async () => {
    const t = gateway();
    const largest = String(Number.MAX_SAFE_INTEGER);
    const operatorKey = keyOf(operator);
    for (const path of ["/admin/api/keys/{n}", "/admin/api/sender-ids/{n}/approve", "/admin/api/email/inbox/{n}"]) {
      const method = path.endsWith("approve") ? "POST" : path.startsWith("/admin/api/keys") ? "DELETE" : "GET";
      const answer = await call(t, method, path.replace("{n}", largest), { headers: operatorKey });
      expect(answer.status, `${path} ${answer.text}`).toBe(404);
      expect(answer.body.error.code).toBe("not_found");
    }
    const bulk = await call(t, "POST", "/api/v2/sms/bulk", {
      headers: { ...keyOf(customer), "content-type": "application/json" },
      body: `{${SEND},"recipients":["9876543210"],"job_id":${largest}}`,
    });
    expect(bulk.status, bulk.text).toBe(404);
    expect(bulk.body).toMatchObject({ success: false, error: { code: "not_found" } });
    const filter = await call(t, "GET", `/api/v2/messages?job_id=${largest}`, { headers: keyOf(customer) });
    expect(filter.status, filter.text).toBe(200);
    expect(filter.body.data).toEqual([]);
    const page = await call(t, "GET", "/admin/api/accounts?page=1000000", { headers: operatorKey });
    expect(page.status, page.text).toBe(200);
    expect(page.body.data).toEqual([]);
    expect(page.body.meta.page).toBe(1_000_000);
    const flood = await call(t, "PATCH", `/admin/api/accounts/${customer.username}`, {
      headers: operatorKey,
      json: { flood_limit: Number.MAX_SAFE_INTEGER },
    });
    expect(flood.status, flood.text).toBe(200);
    expect(flood.body.data.flood_limit).toBe(Number.MAX_SAFE_INTEGER);
  });
});
