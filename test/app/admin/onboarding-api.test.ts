// Onboarding through the operator API: one POST makes an account that sends at once (sender
// ID approved and white-listed as its DLT header, entity white-listed, template approved,
// credits per wallet), or, for any bad field, writes nothing at all. The account view says
// what an account still lacks and the exact command and call that add each piece.
import { beforeAll, expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type JsonResponse, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { legacy } from "../../helpers/legacy.js";
import { FAST_SIMULATOR, sendSms, waitForStatus } from "../../helpers/sms.js";

const ENTITY = "1101160000000000042";
const OTHER_ENTITY = "1101160000000000043";

let counter = 0;
const fresh = () => `onboard${++counter}_${Math.random().toString(36).slice(2, 7)}`;

describeEachEngine("onboarding through the operator API", (engine) => {
  const gateway = useTestGateway(engine, { env: { ...FAST_SIMULATOR, LEGACY_THROTTLE_PER_SECOND: "0" } });
  let operator: TestAccount;
  const admin = (method: string, path: string, json?: unknown): Promise<JsonResponse> =>
    call(gateway(), method, `/admin/api${path}`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      ...(json !== undefined ? { json } : {}),
    });
  const rowsOf = async (username: string) => {
    const db = gateway().db.store.db;
    const account = await db.selectFrom("accounts").select("id").where("username", "=", username).executeTakeFirst();
    if (!account) return undefined;
    const count = async (table: "sender_ids" | "dlt_entities" | "dlt_headers" | "templates" | "api_keys") =>
      (await db.selectFrom(table).select("id").where("account_id", "=", account.id).execute()).length;
    return { senders: await count("sender_ids"), templates: await count("templates"), keys: await count("api_keys") };
  };

  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
  });

  it("makes an account ready to send in one call, and its first SMS is delivered", async () => {
    const t = gateway();
    const username = fresh();
    const created = await admin("POST", "/accounts", {
      username,
      password: "a-long-password",
      sender_ids: ["acme"],
      dlt_entity_ids: [ENTITY],
      templates: [{ content: "Your OTP is {#var#}", dlt_template_id: "1107160000000000042" }],
      credits: { sms: 1000, whatsapp: 50 },
      rate_limit: 0,
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data).toEqual({
      id: expect.any(Number),
      username,
      api_key: expect.stringMatching(/^sb_/),
      ready: true,
      missing: [],
    });
    const account: TestAccount = {
      id: created.body.data.id,
      username,
      password: "a-long-password",
      apiKey: created.body.data.api_key,
    };

    const shown = await admin("GET", `/accounts/${username}`);
    expect(shown.body.data).toMatchObject({
      username,
      dlt_scrubbing: true,
      balances: { sms: 1000, whatsapp: 50, international: 0, email: 0, voice: 0 },
      registrations: {
        sender_ids: [{ sender_id: "ACME", status: "approved" }],
        dlt_headers: ["ACME"],
        dlt_entities: [ENTITY],
        dlt_entity_of_sends: ENTITY,
        templates: { approved: 1, pending: 0 },
      },
      ready: true,
      missing: [],
    });

    // Transactional (template, scrubbing on) on v2, and promotional on legacy as the spec's clients send it.
    const sent = await sendSms(t, account, {
      sender_id: "ACME",
      recipient: "9876543210",
      message: "Your OTP is 482913",
    });
    expect(sent.status, sent.text).toBe(200);
    expect((await waitForStatus(t, account, sent.body.data.message_id)).status).toBe("delivered");
    const promo = await legacy(t, "/httpapi/send", {
      username,
      password: "a-long-password",
      sender_id: "PROMOTIONAL",
      route: "P",
      phonenumber: "9876543210",
      message: "Sale today",
    });
    expect(promo.text).toMatch(new RegExp(`^${account.id}_\\d{8}_\\d+$`));
    const stored = await t.db.store.db
      .selectFrom("messages")
      .select(["dlt_entity_id", "template_id"])
      .where("account_id", "=", account.id)
      .orderBy("id")
      .execute();
    expect(stored.map((m) => m.dlt_entity_id)).toEqual([ENTITY, ENTITY]);
    expect(stored[0]!.template_id).toEqual(expect.any(Number));
  });

  it("makes the first of several entities the default unless one is named, and refuses a default not among them", async () => {
    const first = fresh();
    await admin("POST", "/accounts", {
      username: first,
      password: "a-long-password",
      dlt_entity_ids: [ENTITY, OTHER_ENTITY],
    });
    expect((await admin("GET", `/accounts/${first}`)).body.data).toMatchObject({
      default_dlt_entity_id: ENTITY,
      registrations: { dlt_entity_of_sends: ENTITY },
    });
    const named = fresh();
    await admin("POST", "/accounts", {
      username: named,
      password: "a-long-password",
      dlt_entity_ids: [ENTITY, OTHER_ENTITY],
      default_dlt_entity_id: OTHER_ENTITY,
    });
    expect((await admin("GET", `/accounts/${named}`)).body.data.default_dlt_entity_id).toBe(OTHER_ENTITY);
  });

  it("refuses a bad field (400, or 422 for a sender ID) and writes nothing: no account, key, sender ID, entity or template", async () => {
    const good = {
      password: "a-long-password",
      sender_ids: ["ACME"],
      dlt_entity_ids: [ENTITY],
      templates: [{ content: "Your OTP is {#var#}" }],
      credits: { sms: 10 },
    };
    const cases: [string, Record<string, unknown>, RegExp][] = [
      // The sender-ID endpoint's own answer for one it cannot register (422 invalid_sender_id).
      ["a bad sender ID", { sender_ids: ["ACME", "!"] }, /A sender ID is/],
      ["a bad entity ID", { dlt_entity_ids: ["1101-16"] }, /DLT entity ID/],
      ["a default not among the entities", { default_dlt_entity_id: OTHER_ENTITY }, /must be one of/],
      ["a blank template", { templates: [{ content: "Hello {#var#}" }, { content: "   " }] }, /Template content/],
      [
        "a template with a bad DLT template ID",
        { templates: [{ content: "Hi {#var#}", dlt_template_id: "1-2" }] },
        /DLT template ID/,
      ],
      ["an unknown route", { routes: ["T", "X"] }, /Unknown route/],
      ["an unknown time zone", { time_zone: "Mars/Olympus" }, /time zone/],
      ["an unknown wallet", { credits: { sms: 5, gold: 1 } }, /gold/],
      ["a negative flood limit", { flood_limit: -1 }, /flood_limit/],
      ["an unknown template field", { templates: [{ content: "Hi {#var#}", approve: false }] }, /approve/],
      ["an unknown field", { dlt_headers: ["ACME"] }, /dlt_headers/],
      ["a short password", { password: "short" }, /Password/],
      ["a password of 257 characters", { password: "p".repeat(257) }, /8 to 256 characters/],
    ];
    for (const [name, change, message] of cases) {
      const username = fresh();
      const response = await admin("POST", "/accounts", { username, ...good, ...change });
      const sender = name === "a bad sender ID";
      expect(response.status, `${name}: ${response.text}`).toBe(sender ? 422 : 400);
      expect(response.body.error.code, name).toBe(sender ? "invalid_sender_id" : "invalid_request");
      expect(response.body.message, name).toMatch(message);
      // Every refusal names its field as the request writes it, a list's entry by its place.
      const field = {
        "a bad sender ID": "sender_ids[1]",
        "a bad entity ID": "dlt_entity_ids[0]",
        "a default not among the entities": "default_dlt_entity_id",
        "a blank template": "templates[1].content",
        "a template with a bad DLT template ID": "templates[0].dlt_template_id",
        "an unknown route": "routes",
        "an unknown time zone": "time_zone",
        "an unknown wallet": "credits.gold",
        "a negative flood limit": "flood_limit",
        "an unknown template field": "templates[0].approve",
        "an unknown field": "dlt_headers",
        "a short password": "password",
        "a password of 257 characters": "password",
      }[name];
      expect(response.body.error.field, name).toBe(field);
      expect(await rowsOf(username), name).toBeUndefined();
      expect((await admin("GET", `/accounts/${username}`)).status, name).toBe(404);
    }
    // A name taken in another case is a conflict, and the existing account keeps what it had.
    const taken = fresh();
    await admin("POST", "/accounts", { username: taken, ...good });
    const before = await rowsOf(taken);
    const again = await admin("POST", "/accounts", { username: taken.toUpperCase(), ...good, sender_ids: ["OTHER"] });
    expect(again.status).toBe(409);
    expect(await rowsOf(taken)).toEqual(before);
  });

  it("says what an account lacks to send, with the command and the call that add each", async () => {
    const username = fresh();
    const created = await admin("POST", "/accounts", { username, password: "a-long-password" });
    expect(created.body.data.ready).toBe(false);
    const missing = (await admin("GET", `/accounts/${username}`)).body.data.missing;
    expect(missing.map((m: { what: string }) => m.what)).toEqual(["sender_id", "dlt_entity", "template", "credits"]);
    expect(missing[1]).toEqual({
      what: "dlt_entity",
      message: expect.stringContaining("-31"),
      command: `switchboard dlt entities add --account ${username} --entity-id <ENTITY_ID>`,
      api: `POST /admin/api/accounts/${username}/dlt/entities {"entity_id":"<ENTITY_ID>"}`,
    });

    // Following the API hints one by one makes it ready.
    await admin("POST", `/accounts/${username}/sender-ids`, { sender: "ACME" });
    const pending = (await admin("GET", `/accounts/${username}`)).body.data.missing[0];
    expect(pending.what).toBe("sender_id");
    expect(pending.command).toMatch(/^switchboard sender-ids approve --id \d+$/);
    await admin("POST", pending.api.replace(/^POST \/admin\/api/, ""));
    // The approval white-lists it as the DLT header too (decision 0151): the entity is next.
    const next = (await admin("GET", `/accounts/${username}`)).body.data.missing;
    expect(next.map((m: { what: string }) => m.what)).not.toContain("dlt_header");
    expect(next[0]).toMatchObject({ what: "dlt_entity" });
    await admin("POST", `/accounts/${username}/dlt/entities`, { entity_id: ENTITY });
    await admin("POST", `/accounts/${username}/dlt/entities`, { entity_id: OTHER_ENTITY });
    expect((await admin("GET", `/accounts/${username}`)).body.data.missing[0]).toMatchObject({
      what: "default_dlt_entity",
      message: expect.stringContaining(`${ENTITY}, ${OTHER_ENTITY}`),
      command: `switchboard accounts set --username ${username} --dlt-entity <ENTITY_ID>`,
    });
    await admin("PATCH", `/accounts/${username}`, { default_dlt_entity_id: ENTITY });
    await admin("POST", `/accounts/${username}/templates`, { name: "otp", content: "Code {#var#}", approve: true });
    await admin("POST", `/accounts/${username}/credits`, { wallet: "sms", amount: 5 });
    expect((await admin("GET", `/accounts/${username}`)).body.data).toMatchObject({ ready: true, missing: [] });
  });
});
