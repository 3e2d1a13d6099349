import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  GraphClient,
  type GraphCredentials,
  GraphError,
  type GraphTemplate,
} from "../../../src/channels/whatsapp/graph.js";
import { metaErrorBody, startFakeGraph } from "./fake-graph.js";

const creds: GraphCredentials = {
  phoneNumberId: "109000000000001",
  wabaId: "102000000000001",
  accessToken: "EAAG-good",
};

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(options: { pageSize?: number; timeoutMs?: number } = {}) {
  const fake = await startFakeGraph({ pageSize: options.pageSize });
  fake.addPhoneNumber(creds.phoneNumberId, creds.wabaId, creds.accessToken);
  const client = new GraphClient({ baseUrl: fake.url, version: fake.version, timeoutMs: options.timeoutMs ?? 2_000 });
  cleanups.push(
    () => fake.close(),
    () => client.close(),
  );
  return { fake, client };
}

/** A client of a one-off server answering with `handle` (for answers the fake never gives). */
async function customGraph(handle: http.RequestListener) {
  const server = http.createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  const client = new GraphClient({ baseUrl: `http://127.0.0.1:${port}`, version: "v21.0", timeoutMs: 2_000 });
  cleanups.push(() => client.close());
  return client;
}

const json = (res: http.ServerResponse, body: unknown) =>
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));

function template(name: string, body: string, status = "APPROVED"): GraphTemplate {
  return {
    id: String(800_000_000_000_000 + name.length * 1000 + body.length),
    name,
    language: "en_US",
    status,
    category: "UTILITY",
    components: [
      { type: "HEADER", format: "TEXT", text: "Order update" },
      { type: "BODY", text: body },
      {
        type: "BUTTONS",
        buttons: [{ type: "URL", text: "Track", url: "https://example.com/t/{{1}}", example: ["x"] }],
      },
    ],
  };
}

/** The GraphError the promise rejects with (fails the test when it resolves or throws anything else). */
async function graphError(promise: Promise<unknown>): Promise<GraphError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GraphError);
  return error as GraphError;
}

const text = (to: string, body: string) => ({ messaging_product: "whatsapp", to, type: "text", text: { body } });

describe("GraphClient.sendMessage", () => {
  it("posts the payload as given with the bearer token and resolves with the wamid", async () => {
    const { fake, client } = await setUp();
    const payload = {
      ...text("+919876543210", "Hello"),
      recipient_type: "individual",
      biz_opaque_callback_data: "m-1",
    };
    const sent = await client.sendMessage(creds, payload);
    expect(sent.messageId).toMatch(/^wamid\.[A-Za-z0-9+/=]+$/);
    expect(sent.waId).toBe("919876543210");
    const [request] = fake.sends();
    expect(fake.sends()).toHaveLength(1);
    expect(request!.path).toBe(`/v21.0/${creds.phoneNumberId}/messages`);
    expect(request!.headers.authorization).toBe("Bearer EAAG-good");
    expect(request!.headers["content-type"]).toBe("application/json");
    expect(request!.body).toEqual(payload);
    const again = await client.sendMessage(creds, text("919876543210", "Again"));
    expect(again.messageId).not.toBe(sent.messageId);
  });

  it("sends an approved template with the right parameter count (message_status accepted)", async () => {
    const { fake, client } = await setUp();
    fake.setTemplates(creds.wabaId, [template("order_update", "Order {{1}} ships on {{2}}.")]);
    const payload = {
      messaging_product: "whatsapp",
      to: "919876543210",
      type: "template",
      template: {
        name: "order_update",
        language: { code: "en_US" },
        components: [
          {
            type: "body",
            parameters: [
              { type: "text", text: "A-1" },
              { type: "text", text: "Monday" },
            ],
          },
        ],
      },
    };
    const sent = await client.sendMessage(creds, payload);
    expect(sent.messageStatus).toBe("accepted");
    expect(fake.sends()[0]!.body).toEqual(payload);

    const one = { ...payload.template, components: [{ type: "body", parameters: [{ type: "text", text: "A-1" }] }] };
    const wrongCount = await graphError(client.sendMessage(creds, { ...payload, template: one }));
    expect(wrongCount).toMatchObject({ kind: "http", httpStatus: 400, code: 132000 });
    expect(wrongCount.details).toBe(
      "body: number of localizable_params (1) does not match the expected number of params (2)",
    );
  });

  it("turns Meta's error bodies into GraphError fields", async () => {
    const { fake, client } = await setUp();
    fake.scriptNext({
      status: 400,
      body: {
        error: {
          message: "(#131047) Re-engagement message",
          type: "OAuthException",
          code: 131047,
          error_subcode: 2494010,
          error_user_title: "Message outside the window",
          error_user_msg: "Send a template instead.",
          error_data: {
            messaging_product: "whatsapp",
            details: "Message failed to send because more than 24 hours have passed since the customer last replied.",
          },
          fbtrace_id: "AbCdEf123",
        },
      },
    });
    const window = await graphError(client.sendMessage(creds, text("919876543210", "Hi")));
    expect(window).toMatchObject({
      kind: "http",
      httpStatus: 400,
      code: 131047,
      subcode: 2494010,
      title: "Message outside the window",
      userMessage: "Send a template instead.",
      fbtraceId: "AbCdEf123",
      message: "(#131047) Re-engagement message",
      neverSent: false,
    });
    expect(window.details).toMatch(/more than 24 hours/);

    const noTemplate = await graphError(
      client.sendMessage(creds, {
        messaging_product: "whatsapp",
        to: "919876543210",
        type: "template",
        template: { name: "missing", language: { code: "en_US" } },
      }),
    );
    expect(noTemplate).toMatchObject({ httpStatus: 400, code: 132001, title: "OAuthException" });
    expect(noTemplate.details).toBe("template name (missing) does not exist in en_US");
    expect(noTemplate.fbtraceId).toMatch(/^A/);

    const badToken = await graphError(client.sendMessage({ ...creds, accessToken: "EAAG-stale" }, text("91987", "x")));
    expect(badToken).toMatchObject({ kind: "http", httpStatus: 401, code: 190, title: "OAuthException" });
    expect(badToken.message).toMatch(/Invalid OAuth access token/);

    const unknownPhone = await graphError(client.sendMessage({ ...creds, phoneNumberId: "999" }, text("91987", "x")));
    expect(unknownPhone).toMatchObject({ httpStatus: 400, code: 100, subcode: 33, title: "GraphMethodException" });

    fake.scriptNext({
      status: 400,
      body: metaErrorBody({
        message: "(#131056) (Business Account, Consumer Account) pair rate limit hit",
        type: "OAuthException",
        code: 131056,
        details:
          "Message failed to send because there were too many messages sent from this phone number to the same phone number in a short period of time.",
      }),
    });
    const rate = await graphError(client.sendMessage(creds, text("919876543210", "Hi")));
    expect(rate).toMatchObject({ kind: "http", httpStatus: 400, code: 131056 });
    expect(rate.details).toMatch(/too many messages/);

    fake.scriptNext({ status: 500, body: "" });
    const serverError = await graphError(client.sendMessage(creds, text("919876543210", "Hi")));
    expect(serverError).toMatchObject({ kind: "http", httpStatus: 500, code: undefined, details: undefined });
    expect(serverError.message).toMatch(/HTTP 500/);
    expect(fake.sends()).toHaveLength(6);
  });

  it("reads error_data given as a JSON string, and a non-JSON error page", async () => {
    const { fake, client } = await setUp();
    fake.scriptNext({
      status: 400,
      body: {
        error: { message: "Invalid parameter", type: "OAuthException", code: 100, error_data: '{"details":"bad to"}' },
      },
    });
    expect(await graphError(client.sendMessage(creds, text("1", "x")))).toMatchObject({ code: 100, details: "bad to" });
    fake.scriptNext({ status: 502, body: "<html>Bad Gateway</html>" });
    const page = await graphError(client.sendMessage(creds, text("1", "x")));
    expect(page).toMatchObject({ kind: "http", httpStatus: 502, code: undefined });
    expect(page.message).toContain("Bad Gateway");
  });

  it("times out a hanging call within timeoutMs, and never retries it", async () => {
    const { fake, client } = await setUp({ timeoutMs: 300 });
    fake.scriptNext({ hang: true });
    const started = performance.now();
    const error = await graphError(client.sendMessage(creds, text("919876543210", "Hi")));
    const elapsed = performance.now() - started;
    expect(error.kind).toBe("timeout");
    expect(error.neverSent).toBe(false);
    expect(elapsed).toBeGreaterThanOrEqual(280);
    expect(elapsed).toBeLessThan(1_500);
    // Bounded wait for what must not happen: a resend by the HTTP client behind the error.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(fake.sends()).toHaveLength(1);
    // The pool is still usable afterwards.
    expect((await client.sendMessage(creds, text("919876543210", "Hi"))).messageId).toMatch(/^wamid\./);
  });

  it("waits for a slow answer shorter than the time-out", async () => {
    const { fake, client } = await setUp({ timeoutMs: 1_000 });
    fake.scriptNext({ delayMs: 200 });
    expect((await client.sendMessage(creds, text("919876543210", "Hi"))).waId).toBe("919876543210");
  });

  it("reports a reset connection as kind network, once", async () => {
    const { fake, client } = await setUp();
    fake.scriptNext({ reset: true });
    const error = await graphError(client.sendMessage(creds, text("919876543210", "Hi")));
    expect(error.kind).toBe("network");
    expect(error.neverSent).toBe(false);
    expect(fake.sends()).toHaveLength(1);
  });

  it("reports a refused connection as network, certainly never sent", async () => {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const client = new GraphClient({ baseUrl: `http://127.0.0.1:${port}`, version: "v21.0", timeoutMs: 1_000 });
    cleanups.push(() => client.close());
    const error = await graphError(client.sendMessage(creds, text("919876543210", "Hi")));
    expect(error).toMatchObject({ kind: "network", neverSent: true });
  });

  it("rejects a 2xx answer without messages[0].id as invalid_response", async () => {
    const { fake, client } = await setUp();
    fake.scriptNext({ status: 200, body: { messaging_product: "whatsapp", contacts: [{ wa_id: "1" }], messages: [] } });
    fake.scriptNext({ status: 200, body: { messages: [{ id: 42 }] } });
    fake.scriptNext({ status: 200, body: "ok" });
    for (let i = 0; i < 3; i++) {
      const error = await graphError(client.sendMessage(creds, text("919876543210", "Hi")));
      expect(error.kind).toBe("invalid_response");
    }
  });
});

describe("GraphClient.listTemplates", () => {
  const five = ["a", "b", "c", "d", "e"].map((n, i) => template(`t_${n}`, `Body ${"{{1}} ".repeat(i)}`));

  it("follows paging.next across pages and returns every template in order", async () => {
    const { fake, client } = await setUp({ pageSize: 2 });
    fake.setTemplates(creds.wabaId, five);
    const listed = await client.listTemplates(creds);
    expect(listed).toEqual(five);
    const gets = fake.requests.filter((r) => r.method === "GET");
    expect(gets).toHaveLength(3);
    expect(gets.map((r) => r.path)).toEqual(Array(3).fill(`/v21.0/${creds.wabaId}/message_templates`));
    expect(gets[0]!.query).toEqual({
      fields: "id,name,status,category,language,components,rejected_reason",
      limit: "100",
    });
    expect(gets[1]!.query.after).toBeDefined();
    expect(gets[2]!.query.after).not.toBe(gets[1]!.query.after);
    expect(gets.every((r) => r.headers.authorization === "Bearer EAAG-good")).toBe(true);
  });

  it("lists nothing for an account without templates, and refuses a wrong token", async () => {
    const { client } = await setUp();
    expect(await client.listTemplates(creds)).toEqual([]);
    const error = await graphError(client.listTemplates({ ...creds, accessToken: "other" }));
    expect(error).toMatchObject({ kind: "http", httpStatus: 401, code: 190 });
  });

  it("uses cursors.after instead of a paging.next on another origin", async () => {
    const seen: URL[] = [];
    const client = await customGraph((req, res) => {
      const url = new URL(req.url ?? "/", "http://local");
      seen.push(url);
      if (url.searchParams.get("after"))
        json(res, { data: [five[1]], paging: { cursors: { before: "c1", after: "c2" } } });
      else {
        const next = "https://graph.example.net/v21.0/x?after=c1";
        json(res, { data: [five[0]], paging: { cursors: { before: "c0", after: "c1" }, next } });
      }
    });
    expect(await client.listTemplates(creds)).toEqual([five[0], five[1]]);
    expect(seen.map((u) => u.pathname)).toEqual(Array(2).fill(`/v21.0/${creds.wabaId}/message_templates`));
    expect(seen[1]!.searchParams.get("after")).toBe("c1");
    expect(seen[1]!.searchParams.get("limit")).toBe("100");
  });

  it("gives up on a listing that never ends, after 100 pages", async () => {
    let calls = 0;
    const client = await customGraph((req, res) => {
      calls++;
      json(res, { data: [], paging: { next: `http://${req.headers.host}/v21.0/w/message_templates?after=${calls}` } });
    });
    const error = await graphError(client.listTemplates(creds));
    expect(error.kind).toBe("invalid_response");
    expect(calls).toBe(100);
  });

  it("rejects a listing without a data array, or with a template it cannot identify", async () => {
    const answers = [{ templates: [] }, { data: [{ name: "x", language: "en_US", status: "APPROVED" }] }];
    const client = await customGraph((_req, res) => json(res, answers.shift()));
    expect(await graphError(client.listTemplates(creds))).toMatchObject({ kind: "invalid_response" });
    expect(await graphError(client.listTemplates(creds))).toMatchObject({ kind: "invalid_response" });
  });

  it("answers an unknown path (here a version) with Meta's 404 error body", async () => {
    const { fake } = await setUp();
    const other = new GraphClient({ baseUrl: fake.url, version: "v99.0", timeoutMs: 1_000 });
    cleanups.push(() => other.close());
    expect(await graphError(other.listTemplates(creds))).toMatchObject({ httpStatus: 404, code: 2500 });
  });
});
