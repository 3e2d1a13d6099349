// Habits of common HTTP clients that the gateway must not refuse (spec audit, items 5 and 7):
// - `Content-Type: application/json` set on every request (requests.Session, axios and Guzzle
//   defaults, Postman), a DELETE and other bodiless requests included: an empty or
//   whitespace-only body is no body, in every family; a non-empty invalid one is still invalid;
// - `?_=<timestamp>`, the cache-buster of jQuery and many clients: ignored on every GET of every
//   family (decision 0024's addendum), while any other unknown query parameter is still refused.
import { beforeAll, expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { RawConnection } from "../../helpers/raw-http.js";
import { keyOf } from "../../helpers/sms.js";

const JSON_TYPE = { "content-type": "application/json" };
/** Bodies that are no body: empty, and JSON whitespace only. */
const BLANK_BODIES = ["", " ", "\r\n", " \t\n "];
/** The v2 lists the audit found refusing `_`. */
const LISTS = ["/templates", "/sender-ids", "/groups", "/credits/history", "/keywords", "/bulk-jobs"];

interface Operation {
  parameters?: Array<{ name: string; in: string }>;
}

describeEachEngine("client habits: empty JSON bodies and the cache-buster", (engine) => {
  const gateway = useTestGateway(engine);
  let account: TestAccount;
  let operator: TestAccount;

  beforeAll(async () => {
    account = await buildAccount(gateway());
    operator = await buildAccount(gateway(), { role: "operator" });
  });

  async function createGroup(name: string): Promise<number> {
    const created = await call(gateway(), "POST", "/api/v2/groups", { headers: keyOf(account), json: { name } });
    expect(created.status, created.text).toBe(201);
    return created.body.data.id;
  }

  async function groupExists(id: number): Promise<boolean> {
    const answer = await call(gateway(), "GET", `/api/v2/groups/${id}/contacts`, { headers: keyOf(account) });
    expect([200, 404], answer.text).toContain(answer.status);
    return answer.status === 200;
  }

  it("deletes a group on a DELETE with Content-Type: application/json and no body (or a blank one)", async () => {
    const t = gateway();
    let n = 0;
    for (const body of [undefined, ...BLANK_BODIES]) {
      for (const type of ["application/json", "application/json; charset=utf-8"]) {
        const id = await createGroup(`habits-${++n}`);
        const answer = await call(t, "DELETE", `/api/v2/groups/${id}`, {
          headers: { ...keyOf(account), "content-type": type },
          ...(body !== undefined ? { body } : {}),
        });
        expect(answer.status, `${JSON.stringify(body)} ${type}: ${answer.text}`).toBe(200);
        expect(answer.body).toMatchObject({ status: "success", data: { id, deleted: true } });
        expect(await groupExists(id)).toBe(false);
      }
    }
  });

  it("deletes a group when the DELETE has the JSON type and neither Content-Length nor a chunk (curl -X DELETE -H …)", async () => {
    const t = gateway();
    const connection = await RawConnection.open(t.url);
    try {
      const host = "host: 127.0.0.1\r\n";
      const headers = `${host}x-api-key: ${account.apiKey}\r\ncontent-type: application/json\r\n`;
      const bare = await createGroup("habits-curl");
      const first = await connection.exchange(`DELETE /api/v2/groups/${bare} HTTP/1.1\r\n${headers}\r\n`);
      expect(first.status, first.body).toBe(200);
      expect(await groupExists(bare)).toBe(false);
      // A client that streams its body sends an empty chunked one.
      const chunked = await createGroup("habits-chunked");
      const second = await connection.exchange(
        `DELETE /api/v2/groups/${chunked} HTTP/1.1\r\n${headers}transfer-encoding: chunked\r\n\r\n`,
        "0\r\n\r\n",
      );
      expect(second.status, second.body).toBe(200);
      expect(await groupExists(chunked)).toBe(false);
    } finally {
      connection.close();
    }
  });

  it("still refuses a non-empty body that is not JSON with 400 invalid_json, and deletes nothing", async () => {
    const t = gateway();
    const id = await createGroup("habits-kept");
    for (const body of ["{", " x ", "undefined", '{"a":1'])
      for (const [method, path] of [
        ["DELETE", `/api/v2/groups/${id}`],
        ["POST", "/api/v2/sms/send"],
        ["POST", "/api/v2/groups"],
      ] as const) {
        const answer = await call(t, method, path, { headers: { ...keyOf(account), ...JSON_TYPE }, body });
        expect(answer.status, `${method} ${path} ${JSON.stringify(body)}: ${answer.text}`).toBe(400);
        expect(answer.body.error.code).toBe("invalid_json");
      }
    expect(await groupExists(id)).toBe(true);
  });

  it("answers a v2 route that needs a body, sent an empty JSON body, with its missing-field 400", async () => {
    const t = gateway();
    for (const body of BLANK_BODIES) {
      const send = await call(t, "POST", "/api/v2/sms/send", { headers: { ...keyOf(account), ...JSON_TYPE }, body });
      expect(send.status, send.text).toBe(400);
      expect(send.body).toMatchObject({
        success: false,
        message: "Missing sender ID.",
        error: { code: "missing_sender_id", legacy_code: -4 },
      });
      const group = await call(t, "POST", "/api/v2/groups", { headers: { ...keyOf(account), ...JSON_TYPE }, body });
      expect(group.status, group.text).toBe(400);
      expect(group.body).toMatchObject({
        status: "error",
        message: 'Missing required field "name" in body.',
        error: { code: "invalid_request", field: "name" },
      });
    }
    // No body and no Content-Type at all: the same answer as `{}`, not "The body must be object.".
    const bare = await call(t, "POST", "/api/v2/groups", { headers: keyOf(account) });
    expect(bare.status, bare.text).toBe(400);
    expect(bare.body.error).toMatchObject({ code: "invalid_request", field: "name" });
    // The key rides in the query, the body is blank: the key is found, the field is missing.
    const keyed = await call(t, "POST", `/api/v2/groups?api_key=${account.apiKey}`, { headers: JSON_TYPE, body: "" });
    expect(keyed.status, keyed.text).toBe(400);
    expect(keyed.body.error).toMatchObject({ code: "invalid_request", field: "name" });
    // A blank body where the key could only be in the body: no key, 401 as before.
    const keyless = await call(t, "POST", "/api/v2/groups", { headers: JSON_TYPE, body: "" });
    expect(keyless.status, keyless.text).toBe(401);
  });

  it("answers the legacy, XML, email and voice sends sent an empty JSON body as they answer no body, in their own dialect", async () => {
    const t = gateway();
    const creds = `username=${account.username}&password=${account.password}`;
    const cases: Array<[string, string, RegExp]> = [
      ["/httpapi/send", creds, /^-4$/],
      ["/api/secure_api/httpapi/send", creds, /^-4$/],
      ["/httpapi/send", `${creds}&sender_id=SWBRD&route=T&phonenumber=9876543210`, /^-6$/],
      ["/api/secure_api/httpapi/send", `${creds}&sender_id=SWBRD&route=T&phonenumber=9876543210`, /^-6$/],
      ["/xmlapi/send", creds, /^-9$/],
      ["/httpemailapi/v1/send", creds, /^-11$/],
      ["/voicecall/v1/jpost/send", `apikey=${account.apiKey}`, /^-4$/],
    ];
    for (const [path, query, code] of cases) {
      const none = await fetch(`${t.url}${path}?${query}`, { method: "POST" });
      const noneText = await none.text();
      expect(noneText, `${path} without a body`).toMatch(code);
      for (const body of BLANK_BODIES) {
        const blank = await fetch(`${t.url}${path}?${query}`, { method: "POST", headers: JSON_TYPE, body });
        const text = await blank.text();
        const what = `${path}?${query} ${JSON.stringify(body)}`;
        expect(blank.status, what).toBe(200);
        expect(blank.headers.get("content-type"), what).toMatch(/^text\/plain/);
        expect(text, what).toBe(noneText);
        expect(blank.headers.get("x-error-message"), what).toBe(none.headers.get("x-error-message"));
      }
    }
    // A legacy send's JSON body that is not JSON keeps its -8.
    const invalid = await fetch(`${t.url}/httpapi/send?${creds}`, { method: "POST", headers: JSON_TYPE, body: "{" });
    expect(await invalid.text()).toBe("-8");
  });

  it("accepts and ignores ?_= on the v2 lists, alone and beside their own parameters", async () => {
    const t = gateway();
    const group = await createGroup("habits-contacts");
    for (const path of [...LISTS, `/groups/${group}/contacts`]) {
      const busted = await call(t, "GET", `/api/v2${path}?_=123`, { headers: keyOf(account) });
      expect(busted.status, `${path}: ${busted.text}`).toBe(200);
      const plain = await call(t, "GET", `/api/v2${path}`, { headers: keyOf(account) });
      expect(busted.body.data, path).toEqual(plain.body.data);
    }
    const paged = await call(t, "GET", "/api/v2/templates?per_page=5&_=1701388800000", { headers: keyOf(account) });
    expect(paged.status, paged.text).toBe(200);
    expect(paged.body.meta.per_page).toBe(5);
    // Given twice, it is still only the cache-buster.
    const twice = await call(t, "GET", "/api/v2/groups?_=1&_=2", { headers: keyOf(account) });
    expect(twice.status, twice.text).toBe(200);
  });

  it("still refuses any other unknown query parameter, a typo or a name like the cache-buster's, naming it", async () => {
    const t = gateway();
    for (const path of LISTS) {
      for (const name of ["per_pag", "__", "_x"]) {
        const answer = await call(t, "GET", `/api/v2${path}?${name}=5&_=123`, { headers: keyOf(account) });
        expect(answer.status, `${path} ${name}: ${answer.text}`).toBe(400);
        expect(answer.body.error).toMatchObject({ code: "invalid_request", field: name });
        expect(answer.body.message).toMatch(new RegExp(`^Unknown query parameter "${name}"; this endpoint takes: `));
      }
    }
  });

  it("ignores ?_= on every GET of the v2 document that takes query parameters", async () => {
    const t = gateway();
    const document = (await call(t, "GET", "/api/v2/openapi.json?_=1")).body as {
      paths: Record<string, Record<string, Operation>>;
    };
    let checked = 0;
    for (const [path, operations] of Object.entries(document.paths)) {
      const names = (operations.get?.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);
      // The GET send ignores every unknown parameter already (and is off for this account).
      if (names.length === 0 || path === "/api/v2/sms/send") continue;
      const url = path.replace(/\{[^}]+\}/g, "1");
      const answer = await call(t, "GET", `${url}?_=123`, { headers: keyOf(account) });
      // An id that names nothing may be a 404, a required parameter missing a 400 naming it:
      // never a refusal of the cache-buster.
      expect(answer.status, `${path}: ${answer.text}`).toBeLessThan(500);
      expect(answer.body?.error?.field, `${path}: ${answer.text}`).not.toBe("_");
      expect(answer.text, path).not.toContain('parameter \\"_\\"');
      checked++;
    }
    expect(checked).toBeGreaterThan(10);
  });

  it("leaves ?_= out of the GET send's Idempotency-Key comparison: a retry with a new cache-buster is the same request", async () => {
    const t = gateway();
    const sender = await buildAccount(t, { credits: { sms: 5 } });
    await t.db.store.db.updateTable("accounts").set({ get_api_enabled: 1 }).where("id", "=", sender.id).execute();
    const query = (extra: Record<string, string>) =>
      new URLSearchParams({ sender_id: "SWBRD", recipient: "9876543210", message: "Hello", ...extra });
    const headers = { ...keyOf(sender), "idempotency-key": "habits-get-send" };
    const first = await call(t, "GET", `/api/v2/sms/send?${query({ _: "1701388800000" })}`, { headers });
    expect(first.status, first.text).toBe(200);
    const retry = await call(t, "GET", `/api/v2/sms/send?${query({ _: "1701388805000" })}`, { headers });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.body.data.message_id).toBe(first.body.data.message_id);
    // Another unknown parameter is still part of the request, as documented.
    const other = await call(t, "GET", `/api/v2/sms/send?${query({ tag: "b" })}`, { headers });
    expect(other.status, other.text).toBe(409);
    expect(other.body.error.code).toBe("idempotency_conflict");
    const wallet = await call(t, "GET", "/api/v2/balance", { headers: keyOf(sender) });
    expect(wallet.body.data.balance).toBe(4);
  });

  it("ignores ?_= on the operator API's and the legacy family's GETs, and still refuses the operator API's unknown names", async () => {
    const t = gateway();
    const admin = { authorization: `Bearer ${operator.apiKey}` };
    const accounts = await call(t, "GET", "/admin/api/accounts?per_page=5&_=123", { headers: admin });
    expect(accounts.status, accounts.text).toBe(200);
    const typo = await call(t, "GET", "/admin/api/accounts?per_pag=5&_=123", { headers: admin });
    expect(typo.status, typo.text).toBe(400);
    expect(typo.body.error).toMatchObject({ code: "invalid_request", field: "per_pag" });

    const creds = `username=${account.username}&password=${account.password}`;
    const credits = await fetch(`${t.url}/api/getcredits?${creds}&_=123`);
    expect(await credits.text()).toMatch(/^\d+(\.\d+)?$/);
    for (const path of ["/httpapi/templates", "/api/secure_api/httpapi/mis", "/httpapi/accountstatus"]) {
      const answer = await fetch(`${t.url}${path}?${creds}&_=123`);
      const text = await answer.text();
      expect(answer.status, `${path}: ${text}`).toBe(200);
      expect(text, path).not.toMatch(/^-\d+$/);
    }
  });
});
