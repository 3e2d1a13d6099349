// The operator's approval queue (GET /admin/api/approvals): what accounts ask for through v2
// (sender IDs, templates, keywords, DLT entity IDs and headers, email domains, caller numbers)
// waits there across accounts, oldest first, until the operator decides it through each kind's
// call; only approved DLT registrations and caller numbers count for sends. Also the account
// search of GET /admin/api/accounts and the system view.
import { beforeAll, expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type JsonResponse, type TestAccount, useTestGateway } from "../../helpers/gateway.js";

describeEachEngine("operator approval queue, account search and system view", (engine) => {
  const gateway = useTestGateway(engine);
  let operator: TestAccount;
  let alice: TestAccount;
  let bob: TestAccount;

  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
    alice = await buildAccount(gateway(), { credits: { sms: 100, voice: 10, email: 10 } });
    bob = await buildAccount(gateway(), { credits: { sms: 100 } });
  });

  const as = (who: TestAccount) => (method: string, path: string, json?: unknown) =>
    call(gateway(), method, path, {
      headers: { authorization: `Bearer ${who.apiKey}` },
      ...(json !== undefined ? { json } : {}),
    });
  const admin = (method: string, path: string, json?: unknown) => as(operator)(method, path, json);

  function ok(response: JsonResponse, status = 200) {
    expect(response.status, response.text).toBe(status);
    return response.body;
  }

  it("queues every kind of request of every account, oldest first, and empties as the operator decides", async () => {
    const a = as(alice);
    const sender = ok(await a("POST", "/api/v2/sender-id-requests", { sender_id: "ALERTS" }), 201).data;
    const template = ok(
      await a("POST", "/api/v2/templates", { name: "otp", content: "Your code is {#var#}" }),
      201,
    ).data;
    const keyword = ok(
      await a("POST", "/api/v2/keywords", { key: "info", response_type: "static", static_message: "Open 9 to 5" }),
      201,
    ).data;
    const entity = ok(await a("POST", "/api/v2/dlt/entities", { entity_id: "1101160000000000009" }), 201).data;
    expect(entity).toMatchObject({ entity_id: "1101160000000000009", status: "pending" });
    const header = ok(await a("POST", "/api/v2/dlt/headers", { header: "alerts" }), 201).data;
    expect(header).toMatchObject({ header: "ALERTS", status: "pending" });
    ok(await a("POST", "/api/v2/email/domains", { domain: "shop.example.com" }), 201);
    const caller = ok(await a("POST", "/api/v2/voice/caller-ids", { number: "080 4711 0000" }), 201).data;
    expect(caller).toMatchObject({ number: "+918047110000", status: "pending" });
    const url = ok(
      await a("POST", "/api/v2/dlt/urls", { entity_id: "1101160000000000009", url: "https://example.com/app" }),
      201,
    ).data;
    const callback = ok(
      await a("POST", "/api/v2/dlt/callbacks", { entity_id: "1101160000000000009", number: "1800 123 4567" }),
      201,
    ).data;
    // Asking again answers the request as it stands.
    expect((await a("POST", "/api/v2/dlt/entities", { entity_id: "1101160000000000009" })).status).toBe(200);
    expect((await a("POST", "/api/v2/voice/caller-ids", { number: "+91 80 4711 0000" })).status).toBe(200);
    ok(await as(bob)("POST", "/api/v2/sender-id-requests", { sender_id: "BOBCO" }), 201);

    const queue = ok(await admin("GET", "/admin/api/approvals"));
    expect(queue.meta).toEqual({ page: 1, per_page: 100, total: 10, last_page: 1 });
    expect(queue.waiting).toEqual({
      sender_id: 2,
      template: 1,
      keyword: 1,
      dlt_entity: 1,
      dlt_header: 1,
      dlt_url: 1,
      dlt_callback: 1,
      email_domain: 1,
      voice_caller_id: 1,
    });
    expect(queue.data.map((item: { kind: string }) => item.kind)).toEqual([
      "sender_id",
      "template",
      "keyword",
      "dlt_entity",
      "dlt_header",
      "email_domain",
      "voice_caller_id",
      "dlt_url",
      "dlt_callback",
      "sender_id",
    ]);
    expect(queue.data[1]).toMatchObject({
      kind: "template",
      id: template.id,
      account: alice.username,
      value: "otp",
      detail: "Your code is {#var#}",
    });
    expect(queue.data[7]).toMatchObject({
      kind: "dlt_url",
      value: "example.com/app",
      detail: "entity 1101160000000000009",
    });
    expect(queue.data[9]).toMatchObject({ account: bob.username, value: "BOBCO" });

    const templates = ok(await admin("GET", "/admin/api/approvals?kind=template"));
    expect(templates.data).toHaveLength(1);
    expect(templates.meta.total).toBe(1);
    const second = ok(await admin("GET", "/admin/api/approvals?per_page=3&page=2"));
    expect(second.data.map((item: { kind: string }) => item.kind)).toEqual([
      "dlt_entity",
      "dlt_header",
      "email_domain",
    ]);
    expect(second.meta).toEqual({ page: 2, per_page: 3, total: 10, last_page: 4 });

    // A pending caller number places no call; approved, it does.
    expect(
      (await a("POST", "/api/v2/voice/calls", { from: "+918047110000", to: "9876543210", text: "Hi" })).body,
    ).toMatchObject({ error: { code: "invalid_sender_id" } });

    ok(await admin("POST", `/admin/api/sender-ids/${sender.id}/approve`));
    ok(await admin("POST", `/admin/api/templates/${template.id}/approve`));
    ok(await admin("POST", `/admin/api/keywords/${keyword.id}/reject`));
    expect(ok(await admin("POST", `/admin/api/dlt/entities/${entity.id}/approve`)).data).toMatchObject({
      entity_id: "1101160000000000009",
      status: "approved",
    });
    ok(await admin("POST", `/admin/api/dlt/headers/${header.id}/reject`));
    expect(ok(await admin("POST", `/admin/api/dlt/urls/${url.id}/approve`)).data).toMatchObject({
      url: "example.com/app",
      status: "approved",
    });
    ok(await admin("POST", `/admin/api/dlt/callbacks/${callback.id}/reject`));
    // A decision names its own kind: a link's id is no callback number's.
    expect((await admin("POST", `/admin/api/dlt/callbacks/${url.id}/approve`)).status).toBe(404);
    ok(
      await admin("PUT", `/admin/api/accounts/${alice.username}/email/domains/shop.example.com`, {
        status: "approved",
      }),
    );
    expect(ok(await admin("POST", `/admin/api/voice/caller-ids/${caller.id}/approve`)).data).toMatchObject({
      number: "+918047110000",
      account: alice.username,
      status: "approved",
    });

    const after = ok(await admin("GET", "/admin/api/approvals"));
    expect(after.data).toEqual([expect.objectContaining({ account: bob.username, value: "BOBCO" })]);
    expect(after.meta.total).toBe(1);

    const dlt = ok(await a("GET", "/api/v2/dlt")).data;
    expect(dlt.entities).toEqual([expect.objectContaining({ entity_id: "1101160000000000009", status: "approved" })]);
    expect(dlt.headers).toEqual([expect.objectContaining({ header: "ALERTS", status: "rejected" })]);
    expect(dlt.urls).toEqual([expect.objectContaining({ url: "example.com/app", status: "approved" })]);
    expect(dlt.callbacks).toEqual([expect.objectContaining({ number: "18001234567", status: "rejected" })]);
    // A rejected request stays rejected when asked again.
    expect((await a("POST", "/api/v2/dlt/headers", { header: "ALERTS" })).body.data.status).toBe("rejected");
    const placed = ok(
      await a("POST", "/api/v2/voice/calls", { from: "080 4711 0000", to: "9876543210", text: "Your code is 4321" }),
      201,
    ).data;
    expect(placed).toMatchObject({ to: "9876543210", credits: 1 });
    expect(placed.broadcast_id).toMatch(/_\d{8}_\d+$/);
    const report = ok(await a("GET", `/api/v2/messages/${placed.message_id}`)).data;
    expect(report.message).toMatchObject({ channel: "voice", mobile: "9876543210" });
  });

  it("refuses bad requests and unknown ids, and keeps the queue from customers", async () => {
    const a = as(alice);
    expect((await a("POST", "/api/v2/dlt/entities", { entity_id: "not an id!" })).body.error.code).toBe(
      "invalid_request",
    );
    expect((await a("POST", "/api/v2/dlt/headers", { header: "AB" })).status).toBe(400);
    expect((await a("POST", "/api/v2/dlt/headers", { header: "ABCDEF", extra: 1 })).status).toBe(400);
    expect((await a("POST", "/api/v2/voice/caller-ids", { number: "12345" })).body.error).toMatchObject({
      code: "invalid_request",
      field: "number",
    });
    expect((await a("POST", "/api/v2/voice/calls", { from: "x", to: "9876543210" })).status).toBe(400);
    for (const path of [
      "/admin/api/dlt/entities/999999/approve",
      "/admin/api/dlt/headers/999999/reject",
      "/admin/api/voice/caller-ids/999999/approve",
    ]) {
      expect((await admin("POST", path)).body.error.code).toBe("not_found");
    }
    expect((await admin("GET", "/admin/api/approvals?kind=everything")).status).toBe(400);
    expect((await admin("GET", "/admin/api/approvals?per_page=0")).status).toBe(400);
    for (const path of ["/admin/api/approvals", "/admin/api/system", "/admin/api/accounts?q=a"]) {
      expect((await a("GET", path)).body.error.code).toBe("operator_only");
      expect((await call(gateway(), "GET", path)).status).toBe(401);
    }
    const bobsEntity = ok(await as(bob)("POST", "/api/v2/dlt/entities", { entity_id: "ZZ1" }), 201).data;
    // Alice never sees Bob's registrations.
    const alices = ok(await a("GET", "/api/v2/dlt")).data;
    expect(alices.entities.map((e: { id: number }) => e.id)).not.toContain(bobsEntity.id);
  });

  it("approves a pending request when the operator adds the same registration", async () => {
    const b = as(bob);
    ok(await b("POST", "/api/v2/voice/caller-ids", { number: "+44 20 7946 0000" }), 201);
    ok(await b("POST", "/api/v2/dlt/entities", { entity_id: "1101160000000000077" }), 201);
    const added = await admin("POST", `/admin/api/accounts/${bob.username}/voice/caller-ids`, {
      number: "+442079460000",
    });
    expect(added.status).toBe(200);
    expect(added.body.data.status).toBe("approved");
    ok(
      await admin("POST", `/admin/api/accounts/${bob.username}/dlt/entities`, { entity_id: "1101160000000000077" }),
      201,
    );
    const dlt = ok(await b("GET", "/api/v2/dlt")).data;
    expect(dlt.entities).toContainEqual(
      expect.objectContaining({ entity_id: "1101160000000000077", status: "approved" }),
    );
  });

  it("searches accounts by part of the username, any case, by status, a page at a time", async () => {
    const t = gateway();
    const made: string[] = [];
    for (const name of ["Acme_Retail", "acme-bank", "acmexretail"]) {
      const created = ok(await admin("POST", "/admin/api/accounts", { username: name, password: "password-1" }), 201);
      made.push(created.data.username);
    }
    ok(await admin("PATCH", "/admin/api/accounts/acme-bank", { status: "blocked" }));
    const acme = ok(await admin("GET", "/admin/api/accounts?q=ACME"));
    expect(acme.data.map((a: { username: string }) => a.username)).toEqual(["Acme_Retail", "acme-bank", "acmexretail"]);
    expect(acme.data[0].balances).toEqual(expect.objectContaining({ sms: expect.any(Number) }));
    expect(acme.meta).toEqual({ page: 1, per_page: 100, total: 3, last_page: 1 });
    // % and _ are letters of the search, not patterns.
    expect(ok(await admin("GET", "/admin/api/accounts?q=%25")).data).toEqual([]);
    const underscore = ok(await admin("GET", "/admin/api/accounts?q=e_r")).data;
    expect(underscore.map((a: { username: string }) => a.username)).toEqual(["Acme_Retail"]);
    expect(ok(await admin("GET", "/admin/api/accounts?q=acme&status=blocked")).meta.total).toBe(1);
    const all = ok(await admin("GET", "/admin/api/accounts?per_page=2&page=2"));
    expect(all.data).toHaveLength(2);
    expect(all.meta.total).toBe(
      Number(
        (
          await t.db.store.db
            .selectFrom("accounts")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      ),
    );
    expect((await admin("GET", "/admin/api/accounts?status=sleeping")).status).toBe(400);
  });

  it("shows the system: queues per channel and lane, the webhook backlog, connectors and processes", async () => {
    const system = ok(await admin("GET", "/admin/api/system")).data;
    expect(system).toMatchObject({
      at: expect.any(String),
      counted_up_to: 100_000,
      queues: expect.any(Array),
      webhooks: { pending: expect.any(Number), overdue_seconds: expect.any(Number) },
      connectors: expect.any(Array),
      processes: expect.any(Array),
    });
    // The test gateway's worker runs the simulators and writes their health.
    await expect
      .poll(
        async () =>
          ok(await admin("GET", "/admin/api/system")).data.connectors.map((c: { connector: string }) => c.connector),
        {
          timeout: 15_000,
        },
      )
      .toContain("simulator");
  });
});
