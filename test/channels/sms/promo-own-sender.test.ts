// Route P from the account's own alphabetic sender ID is promotional with sender ID (PS) by
// another name (decision 0183): without promo sender it is refused as PS is, -22 /
// promo_sender_disabled, on every family (v2 POST and GET, schedule, bulk, legacy GET and POST,
// XML, the SMPP server), nothing stored or charged; with promo sender on it is sent from that
// sender ID. P from PROMOTIONAL or from a numeric promotional header is not gated. The gate is
// rule 5 of docs/api.md's table: after the route's own enabling, before the numbers and the
// sender's approval.
import { DateTime } from "luxon";
import type { Pdu } from "smpp";
import { beforeAll, expect, it } from "vitest";
import { REFUSALS } from "../../../src/channels/smpp-server/index.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type JsonResponse, type TestAccount, type TestGateway } from "../../helpers/gateway.js";
import { credentials, legacy, operatorCall, pushsms, type TextResponse, xmlSend } from "../../helpers/legacy.js";
import { balanceOf, FAST_SIMULATOR, keyOf } from "../../helpers/sms.js";
import { boundEsme, type SmppAccount, smppAccount, useSmppTestGateway } from "../smpp-server/client.js";

const NUMERIC_HEADER = "612345";
const TEXT = "Sale today: 20% off";
const RECIPIENT = "9876543210";

interface Send {
  sender: string;
  /** The legacy letter (T, P, PS); v2 gets the same letter, or `v2Route` when given. */
  route: string;
  v2Route?: string;
  recipient?: string;
}

/** Every family's answer to the one send. */
interface Answers {
  v2: JsonResponse;
  v2Get: JsonResponse;
  schedule: JsonResponse;
  bulk: JsonResponse;
  legacyGet: TextResponse;
  legacyPost: TextResponse;
  xml: TextResponse;
  smpp: Pdu;
}

const BROADCAST = /^\d+_\d{8}_\d+$/;

describeEachEngine("route P from the account's own sender ID needs promo sender", (engine) => {
  const gateway = useSmppTestGateway(engine, {
    env: { ...FAST_SIMULATOR, SMPP_SERVER_PORT: "auto", LEGACY_THROTTLE_PER_SECOND: "0" },
  });
  let operator: TestAccount;
  const op = (method: string, path: string, json?: unknown) => operatorCall(gateway(), operator, method, path, json);

  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
  });

  /** An account with SWBRD and NUMERIC_HEADER approved, GET sends on, promo sender off (the default). */
  async function account(): Promise<SmppAccount> {
    const t = gateway();
    const made = await smppAccount(t);
    await op("POST", `/accounts/${made.username}/sender-ids`, { sender: NUMERIC_HEADER, approve: true });
    await t.db.store.db.updateTable("accounts").set({ get_api_enabled: 1 }).where("id", "=", made.id).execute();
    return made;
  }

  async function sendEverywhere(t: TestGateway, who: SmppAccount, send: Send): Promise<Answers> {
    const recipient = send.recipient ?? RECIPIENT;
    const v2Fields = { sender_id: send.sender, message: TEXT, route: send.v2Route ?? send.route };
    const inAnHour = DateTime.now().setZone("Asia/Kolkata").plus({ hours: 1 }).toFormat("yyyy-MM-dd HH:mm:ss");
    const query = new URLSearchParams({ ...v2Fields, recipient }).toString();
    const client = await boundEsme(t, who, "transmitter");
    try {
      return {
        v2: await call(t, "POST", "/api/v2/sms/send", { headers: keyOf(who), json: { ...v2Fields, recipient } }),
        v2Get: await call(t, "GET", `/api/v2/sms/send?${query}`, { headers: keyOf(who) }),
        schedule: await call(t, "POST", "/api/v2/sms/schedule", {
          headers: keyOf(who),
          json: { ...v2Fields, recipient, scheduled_at: inAnHour },
        }),
        bulk: await call(t, "POST", "/api/v2/sms/bulk", {
          headers: keyOf(who),
          json: { ...v2Fields, recipients: [recipient, "9876543211"] },
        }),
        legacyGet: await legacy(t, "/httpapi/send", {
          ...credentials(who),
          sender_id: send.sender,
          route: send.route,
          phonenumber: recipient,
          message: TEXT,
        }),
        legacyPost: await legacy(
          t,
          "/httpapi/send",
          { ...credentials(who), sender_id: send.sender, route: send.route, phonenumber: recipient, message: TEXT },
          "POST",
        ),
        xml: await xmlSend(
          t,
          pushsms(credentials(who), {
            sender: send.sender,
            route: send.route,
            messages: [{ pno: recipient, msg: TEXT }],
          }),
        ),
        smpp: await client.submit({
          service_type: send.route,
          source_addr: send.sender,
          destination_addr: recipient,
          short_message: TEXT,
        }),
      };
    } finally {
      client.destroy();
    }
  }

  const storedOf = (t: TestGateway, accountId: number) =>
    t.db.store.db
      .selectFrom("messages")
      .select(["sender", "route"])
      .where("account_id", "=", accountId)
      .orderBy("id")
      .execute();

  /** Each family refused the send with promo_sender_disabled in its own dialect (on P, saying why). */
  function expectRefused(answers: Answers, what: string, onP = true): void {
    for (const name of ["v2", "v2Get", "schedule", "bulk"] as const) {
      const answer = answers[name];
      expect.soft({ status: answer.status, error: answer.body?.error }, `${what}: ${name}`).toMatchObject({
        status: 403,
        error: { code: "promo_sender_disabled", legacy_code: -22 },
      });
    }
    const why = onP ? /^Promo with sender ID not enabled: route P sends from PROMOTIONAL or a numeric/ : /^Promo with/;
    expect.soft(answers.v2.body?.message, what).toMatch(why);
    for (const name of ["legacyGet", "legacyPost", "xml"] as const) {
      const answer = answers[name];
      expect
        .soft({ status: answer.status, text: answer.text }, `${what}: ${name}`)
        .toEqual({ status: 200, text: "-22" });
    }
    expect.soft(answers.legacyGet.headers.get("x-error-message"), what).toMatch(why);
    expect.soft(answers.smpp.command_status, `${what}: SMPP`).toBe(REFUSALS.get("promo_sender_disabled"));
  }

  /** Each family accepted the send. */
  function expectAccepted(answers: Answers, what: string): void {
    for (const name of ["v2", "v2Get", "schedule", "bulk"] as const) {
      expect.soft(answers[name].status, `${what}: ${name} ${answers[name].text}`).toBe(200);
    }
    for (const name of ["legacyGet", "legacyPost", "xml"] as const) {
      expect.soft(answers[name].text, `${what}: ${name}`).toMatch(BROADCAST);
    }
    expect.soft(answers.smpp.command_status, `${what}: SMPP`).toBe(0);
  }

  it("refuses P from the account's own sender ID with -22 on every family while promo sender is off, storing and charging nothing", async () => {
    const t = gateway();
    const off = await account();
    const before = await balanceOf(t, off);
    for (const send of [
      { sender: "SWBRD", route: "P", v2Route: "promotional" },
      { sender: "SWBRD", route: "P" },
      { sender: "swbrd", route: "p" },
      { sender: " SWBRD ", route: "P" },
    ]) {
      expectRefused(await sendEverywhere(t, off, send), JSON.stringify(send));
    }
    // PS from the same sender: the same answer, as before.
    expectRefused(await sendEverywhere(t, off, { sender: "SWBRD", route: "PS" }), "PS", false);
    expect(await storedOf(t, off.id)).toEqual([]);
    expect(await balanceOf(t, off)).toBe(before);
  });

  it("checks it as rule 5: after the route's enabling (-19), before the numbers (-5) and the sender's registration (-10)", async () => {
    const t = gateway();
    const off = await account();
    const tOnly = await account();
    await op("PATCH", `/accounts/${tOnly.username}`, { routes: ["T"] });
    const legacySend = (who: TestAccount, sender: string, phonenumber = RECIPIENT) =>
      legacy(t, "/httpapi/send", { ...credentials(who), sender_id: sender, route: "P", phonenumber, message: TEXT });
    // Route P not enabled at all: that is said first, whatever the sender.
    expect((await legacySend(tOnly, "SWBRD")).text).toBe("-19");
    // A bad number, or a sender the account has not registered: -22 first, as on PS.
    expect((await legacySend(off, "SWBRD", "98765")).text).toBe("-22");
    expect((await legacySend(off, "NOSUCH")).text).toBe("-22");
    const v2 = await call(t, "POST", "/api/v2/sms/send", {
      headers: keyOf(off),
      json: { sender_id: "NOSUCH", recipient: "98765", message: TEXT, route: "promotional" },
    });
    expect(v2.status).toBe(403);
    expect(v2.body.error).toMatchObject({ code: "promo_sender_disabled", legacy_code: -22 });
    // With PROMOTIONAL the same bad number and unknown sender keep their own codes.
    expect((await legacySend(off, "PROMOTIONAL", "98765")).text).toBe("-5");
    expect((await legacySend(off, "123999")).text).toBe("-10");
    expect(await storedOf(t, off.id)).toEqual([]);
    expect(await storedOf(t, tOnly.id)).toEqual([]);
  });

  it("sends P from the account's own sender ID once promo sender is on, and stops again when it is off", async () => {
    const t = gateway();
    const on = await account();
    await op("PATCH", `/accounts/${on.username}`, { promo_sender_enabled: true });
    const before = await balanceOf(t, on);
    expectAccepted(await sendEverywhere(t, on, { sender: "SWBRD", route: "P", v2Route: "promotional" }), "P on");
    const stored = await storedOf(t, on.id);
    // v2, GET, schedule, bulk (2), legacy GET and POST, XML, SMPP.
    expect(stored).toHaveLength(9);
    for (const row of stored) expect(row).toEqual({ sender: "SWBRD", route: "promotional" });
    expect(await balanceOf(t, on)).toBe(before - 9);
    await op("PATCH", `/accounts/${on.username}`, { promo_sender_enabled: false });
    expectRefused(await sendEverywhere(t, on, { sender: "SWBRD", route: "P" }), "P off again");
    expect(await storedOf(t, on.id)).toHaveLength(9);
  });

  it("sends P from PROMOTIONAL and from a numeric header with promo sender off, as before", async () => {
    const t = gateway();
    const off = await account();
    const before = await balanceOf(t, off);
    expectAccepted(await sendEverywhere(t, off, { sender: "PROMOTIONAL", route: "P" }), "PROMOTIONAL");
    expectAccepted(await sendEverywhere(t, off, { sender: NUMERIC_HEADER, route: "P" }), "numeric header");
    const stored = await storedOf(t, off.id);
    expect(stored).toHaveLength(18);
    expect(stored.filter((row) => row.sender === "PROMOTIONAL")).toHaveLength(9);
    expect(stored.filter((row) => row.sender === NUMERIC_HEADER)).toHaveLength(9);
    for (const row of stored) expect(row.route).toBe("promotional");
    expect(await balanceOf(t, off)).toBe(before - 18);
    // And T from the account's own sender ID is untouched by promo sender.
    const t1 = await legacy(t, "/httpapi/send", {
      ...credentials(off),
      sender_id: "SWBRD",
      route: "T",
      phonenumber: RECIPIENT,
      message: TEXT,
    });
    expect(t1.text).toMatch(BROADCAST);
  });
});
