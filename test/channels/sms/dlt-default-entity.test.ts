// Promotional and transactional sends as the spec's clients make them: the legacy and XML APIs
// have no entity-ID field, so a send that names no DLT entity carries the account's — its only
// white-listed one, or the default the operator set among several. Only an account left without
// one is refused (-31 / 422), and the refusal says what is missing and the command that adds it.
// One rule (src/sms/dlt-entity.ts), so v2, legacy and XML decide alike.
import { beforeAll, expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { credentials, legacy, operatorCall, pushsms, xmlSend } from "../../helpers/legacy.js";
import { FAST_SIMULATOR, keyOf } from "../../helpers/sms.js";

const E1 = "1101160000000000011";
const E2 = "1101160000000000012";
const STRANGER = "1101160000000000099";
const OTP = "Your OTP is {#var#}.";

type Family = "v2" | "legacy" | "xml";
const FAMILIES: Family[] = ["v2", "legacy", "xml"];

interface Send {
  route: "T" | "P";
  sender: string;
  message: string;
  /** Only v2 and legacy can name one; the XML document has no such field. */
  entity?: string;
}

const PROMO: Send = { route: "P", sender: "PROMOTIONAL", message: "Sale today: 20% off" };
const TRANSACTIONAL: Send = { route: "T", sender: "SWBRD", message: "Your OTP is 4821." };

interface Answer {
  /** The broadcast or message id of an accepted send. */
  id?: string;
  /** v2 error.code, or the legacy negative code as text. */
  refusal?: string;
  message: string;
}

async function send(t: TestGateway, account: TestAccount, family: Family, s: Send): Promise<Answer> {
  if (family === "v2") {
    const response = await call(t, "POST", "/api/v2/sms/send", {
      headers: keyOf(account),
      json: {
        sender_id: s.sender,
        recipient: "9876543210",
        message: s.message,
        route: s.route === "P" ? "promotional" : "transactional",
        ...(s.entity ? { dlt_entity_id: s.entity } : {}),
      },
    });
    if (response.status === 200) return { id: response.body.data.broadcast_id, message: "" };
    expect(response.status, response.text).toBe(422);
    return { refusal: response.body.error.code, message: response.body.message };
  }
  const answer =
    family === "legacy"
      ? await legacy(t, "/httpapi/send", {
          ...credentials(account),
          sender_id: s.sender,
          route: s.route,
          phonenumber: "9876543210",
          message: s.message,
          ...(s.entity ? { dlt_entity_id: s.entity } : {}),
        })
      : await xmlSend(
          t,
          pushsms(credentials(account), {
            sender: s.sender,
            route: s.route,
            messages: [{ pno: "9876543210", msg: s.message }],
          }),
        );
  expect(answer.status).toBe(200);
  if (/^\d+_\d{8}_\d+$/.test(answer.text)) return { id: answer.text, message: "" };
  // The body stays the bare code clients parse; the header carries the explanation.
  return { refusal: answer.text, message: answer.headers.get("x-error-message") ?? "" };
}

async function entityOf(t: TestGateway, account: TestAccount, broadcastId: string): Promise<string | null> {
  const row = await t.db.store.db
    .selectFrom("messages")
    .select("dlt_entity_id")
    .where("account_id", "=", account.id)
    .where("broadcast_id", "=", broadcastId)
    .executeTakeFirstOrThrow();
  return row.dlt_entity_id;
}

describeEachEngine("the DLT entity of a send that names none", (engine) => {
  const gateway = useTestGateway(engine, { env: { ...FAST_SIMULATOR, LEGACY_THROTTLE_PER_SECOND: "0" } });
  let operator: TestAccount;
  const op = (method: string, path: string, json?: unknown) => operatorCall(gateway(), operator, method, path, json);

  /** DLT scrubbing on, header SWBRD white-listed, OTP approved without an entity, and these entities. */
  async function dltAccount(entities: string[]): Promise<TestAccount> {
    const account = await buildAccount(gateway(), { dltScrubbing: true });
    await op("POST", `/accounts/${account.username}/dlt/headers`, { header: "SWBRD" });
    for (const entity_id of entities) await op("POST", `/accounts/${account.username}/dlt/entities`, { entity_id });
    await op("POST", `/accounts/${account.username}/templates`, { name: "otp", content: OTP, approve: true });
    return account;
  }

  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
  });

  it("uses the account's only white-listed entity, in every family, promotional and transactional", async () => {
    const t = gateway();
    const account = await dltAccount([E1]);
    for (const family of FAMILIES) {
      for (const request of [PROMO, TRANSACTIONAL]) {
        const answer = await send(t, account, family, request);
        expect(answer.refusal, `${family} ${request.route}: ${answer.message}`).toBeUndefined();
        expect(await entityOf(t, account, answer.id!)).toBe(E1);
      }
    }
  });

  it("with several entities, uses the operator's default, and a named one over it", async () => {
    const t = gateway();
    const account = await dltAccount([E1, E2]);
    const set = await op("PATCH", `/accounts/${account.username}`, { default_dlt_entity_id: E2.toLowerCase() });
    expect(set.body.data.default_dlt_entity_id).toBe(E2);
    // The change applies to the very next send: caches drop the account at once.
    for (const family of FAMILIES) {
      const answer = await send(t, account, family, PROMO);
      expect(answer.refusal, `${family}: ${answer.message}`).toBeUndefined();
      expect(await entityOf(t, account, answer.id!)).toBe(E2);
    }
    for (const family of ["v2", "legacy"] as const) {
      const named = await send(t, account, family, { ...PROMO, entity: E1 });
      expect(await entityOf(t, account, named.id!), family).toBe(E1);
    }
  });

  it("refuses several entities without a default with -31 / 422, naming them and the command that sets one", async () => {
    const t = gateway();
    const account = await dltAccount([E2, E1]);
    for (const family of FAMILIES) {
      for (const request of [PROMO, TRANSACTIONAL]) {
        const answer = await send(t, account, family, request);
        expect(answer.refusal, family).toBe(family === "v2" ? "dlt_entity_not_whitelisted" : "-31");
        expect(answer.message).toContain(`${E1}, ${E2}`);
        expect(answer.message).toContain("ask the operator to set the default DLT entity ID of your account.");
      }
    }
    expect(
      await t.db.store.db.selectFrom("messages").select("id").where("account_id", "=", account.id).execute(),
    ).toEqual([]);
  });

  it("refuses an account without any entity, saying what to ask the operator for, and no operator command", async () => {
    const t = gateway();
    const account = await dltAccount([]);
    for (const family of FAMILIES) {
      const answer = await send(t, account, family, PROMO);
      expect(answer.refusal, family).toBe(family === "v2" ? "dlt_entity_not_whitelisted" : "-31");
      expect(answer.message).toContain("has no white-listed DLT entity");
      expect(answer.message).toContain("Ask the operator to white-list your DLT entity ID for your account.");
      expect(answer.message).not.toMatch(/switchboard |\/admin\/api/);
    }
  });

  it("refuses an entity that is not white-listed, named by the send or by its template, even with a default", async () => {
    const t = gateway();
    const account = await dltAccount([E1]);
    for (const family of ["v2", "legacy"] as const) {
      const answer = await send(t, account, family, { ...PROMO, entity: STRANGER });
      expect(answer.refusal, family).toBe(family === "v2" ? "dlt_entity_not_whitelisted" : "-31");
      expect(answer.message).toContain(
        `Ask the operator to white-list the DLT entity ID ${STRANGER} for your account.`,
      );
    }
    // A template registered under an entity the account lost: the template's entity decides, not the default.
    await op("POST", `/accounts/${account.username}/templates`, {
      name: "stranger",
      content: "Your parcel {#var#} is out for delivery.",
      entity_id: STRANGER,
      approve: true,
    });
    for (const family of FAMILIES) {
      const answer = await send(t, account, family, {
        ...TRANSACTIONAL,
        message: "Your parcel AB12 is out for delivery.",
      });
      expect(answer.refusal, family).toBe(family === "v2" ? "dlt_entity_not_whitelisted" : "-31");
      expect(answer.message).toContain(STRANGER);
    }
  });

  it("refuses a header that is not white-listed with -32 / 422 and what to ask the operator for", async () => {
    const t = gateway();
    const account = await dltAccount([E1]);
    // Approved without its DLT header (decision 0151's opt-out): sends from it meet -32.
    await op("POST", `/accounts/${account.username}/sender-ids`, { sender: "NOHDR", approve: true, dlt_header: false });
    for (const family of FAMILIES) {
      const answer = await send(t, account, family, { ...TRANSACTIONAL, sender: "NOHDR" });
      expect(answer.refusal, family).toBe(family === "v2" ? "dlt_header_not_whitelisted" : "-32");
      expect(answer.message).toContain("Ask the operator to white-list the DLT header NOHDR for your account.");
      expect(answer.message).not.toMatch(/switchboard |\/admin\/api/);
    }
  });

  it("keeps the default among the white-listed: refuses a stranger, clears on null and when the entity goes", async () => {
    const t = gateway();
    const account = await dltAccount([E1, E2]);
    const refused = await call(t, "PATCH", `/admin/api/accounts/${account.username}`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      json: { default_dlt_entity_id: STRANGER },
    });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.error.code).toBe("invalid_request");
    expect(refused.body.message).toContain(`switchboard dlt entities add --account ${account.username}`);
    for (const bad of ["", "has space", 42]) {
      const response = await call(t, "PATCH", `/admin/api/accounts/${account.username}`, {
        headers: { authorization: `Bearer ${operator.apiKey}` },
        json: { default_dlt_entity_id: bad },
      });
      expect(response.status, response.text).toBe(400);
    }

    await op("PATCH", `/accounts/${account.username}`, { default_dlt_entity_id: E1 });
    const cleared = await op("PATCH", `/accounts/${account.username}`, { default_dlt_entity_id: null });
    expect(cleared.body.data.default_dlt_entity_id).toBeNull();
    expect((await send(t, account, "xml", PROMO)).refusal).toBe("-31");

    await op("PATCH", `/accounts/${account.username}`, { default_dlt_entity_id: E1 });
    await call(t, "DELETE", `/admin/api/accounts/${account.username}/dlt/entities`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      json: { entity_id: E1 },
    });
    const shown = await op("GET", `/accounts/${account.username}`);
    expect(shown.body.data.default_dlt_entity_id).toBeNull();
    // One entity is left, so it is the one.
    const after = await send(t, account, "legacy", PROMO);
    expect(await entityOf(t, account, after.id!)).toBe(E2);
  });
});
