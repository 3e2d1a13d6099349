// A caller is checked before its body is read, on both engines: the operator API answers 401 to a
// request without an operator key (or with a wrong one) while its body is still being sent, and
// before its content type is looked at; the v2 API does the same for a key in a header or the
// query, and still reads a key from the JSON body when there is none outside it; a path no route
// serves answers 404 before its body too.
import { request as httpRequest, type IncomingMessage } from "node:http";
import { expect, it } from "vitest";
import { describeEachEngine } from "../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../helpers/gateway.js";

/**
 * Sends the headers and the first KiB of a body announced as `length` bytes, and resolves with the
 * answer without sending the rest: only a server that answers before reading the body answers at all
 * (otherwise the test's own timeout fails it).
 */
function answerBeforeBody(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  length = 8 * 1024 * 1024,
): Promise<{ status: number; body: { success?: boolean; message?: string; error?: { code?: string } } }> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(
      `${url}${path}`,
      { method, headers: { ...headers, "content-length": String(length) } },
      (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          sent.destroy();
          resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
        });
      },
    );
    // The server may close the connection once it has answered: that is not the test's failure.
    sent.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "ECONNRESET" && error.code !== "EPIPE") reject(error);
    });
    sent.write(Buffer.alloc(1024, 0x20));
  });
}

describeEachEngine("a caller checked before its body is read", (engine) => {
  const gateway = useTestGateway(engine, { roles: ["api"] });
  let operator: TestAccount;
  let customer: TestAccount;

  it("operator API: no key, a wrong key or a customer's key is refused while the body is on its way", async () => {
    operator = await buildAccount(gateway(), { role: "operator" });
    customer = await buildAccount(gateway());
    const url = gateway().url;
    const json = { "content-type": "application/json" };
    const none = await answerBeforeBody(url, "PUT", "/admin/api/price-cards/big", json);
    expect([none.status, none.body.error?.code]).toEqual([401, "unauthorized"]);
    expect(none.body.message).toMatch(/Missing operator API key/);
    const wrong = await answerBeforeBody(url, "PUT", "/admin/api/price-cards/big", {
      ...json,
      authorization: "Bearer sb_wrongwrongwrongwrongwrongwrongwrongwrongwro",
    });
    expect([wrong.status, wrong.body.error?.code]).toEqual([401, "unauthorized"]);
    const notOperator = await answerBeforeBody(url, "POST", "/admin/api/accounts", {
      ...json,
      authorization: `Bearer ${customer.apiKey}`,
    });
    expect([notOperator.status, notOperator.body.error?.code]).toEqual([403, "operator_only"]);
  });

  it("operator API: 401 comes before 415, and a key in the JSON body is not taken", async () => {
    const xml = await call(gateway(), "PUT", "/admin/api/price-cards/big", {
      headers: { "content-type": "application/xml" },
      body: "<rows/>",
    });
    expect([xml.status, xml.body.error.code]).toEqual([401, "unauthorized"]);
    // With the key, the same body is refused for its type.
    const typed = await call(gateway(), "PUT", "/admin/api/price-cards/big", {
      headers: { "content-type": "application/xml", authorization: `Bearer ${operator.apiKey}` },
      body: "<rows/>",
    });
    expect(typed.status).toBe(415);
    const inBody = await call(gateway(), "POST", "/admin/api/accounts", {
      json: { api_key: operator.apiKey, username: "from-body" },
    });
    expect([inBody.status, inBody.body.error.code]).toEqual([401, "unauthorized"]);
    // In the query it is still taken, as the v2 placements say.
    const inQuery = await call(gateway(), "GET", `/admin/api/accounts?api_key=${operator.apiKey}&q=from-body`);
    expect([inQuery.status, inQuery.body.meta.total]).toEqual([200, 0]);
  });

  it("v2: a wrong key in a header or the query is refused before the body; a key in the body still works", async () => {
    const url = gateway().url;
    const json = { "content-type": "application/json" };
    const header = await answerBeforeBody(url, "POST", "/api/v2/sms/send", {
      ...json,
      "x-api-key": "sb_wrongwrongwrongwrongwrongwrongwrongwrongwro",
    });
    // The send answers in its own envelope.
    expect([header.status, header.body.success, header.body.error?.code]).toEqual([401, false, "unauthorized"]);
    const query = await answerBeforeBody(
      url,
      "POST",
      "/api/v2/groups?api_key=sb_wrongwrongwrongwrongwrongwrongwrongwrongwro",
      json,
    );
    expect(query.status).toBe(401);
    // No key outside the body: the body is read, and its key opens the route.
    const balance = await call(gateway(), "POST", "/api/v2/groups", {
      json: { api_key: customer.apiKey, name: "from the body" },
    });
    expect(balance.status).toBe(201);
    const missing = await call(gateway(), "POST", "/api/v2/groups", { json: { name: "no key" } });
    expect([missing.status, missing.body.error.code]).toEqual([401, "unauthorized"]);
  });
  it("a path no route serves answers 404 before its body is read, in its family's dialect", async () => {
    const url = gateway().url;
    const json = { "content-type": "application/json" };
    const admin = await answerBeforeBody(url, "POST", "/admin/api/no-such-thing", json);
    expect([admin.status, admin.body.error?.code]).toEqual([404, "not_found"]);
    const sms = await answerBeforeBody(url, "POST", "/api/v2/sms/nowhere", json);
    expect([sms.status, sms.body.success, sms.body.error?.code]).toEqual([404, false, "not_found"]);
    // A known path with a method it does not take is no route either: 405 naming its methods
    // (decision 0186's addendum), before the body too.
    const method = await answerBeforeBody(url, "DELETE", "/api/v2/sms/send", json);
    expect(method.status).toBe(405);
    // The connection it came on still serves the next request once the rest is drained.
    const small = await call(gateway(), "POST", "/admin/api/no-such-thing", { json: { a: 1 } });
    expect([small.status, small.body.error.code]).toEqual([404, "not_found"]);
  });
});
