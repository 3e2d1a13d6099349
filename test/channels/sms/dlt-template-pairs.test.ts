// A DLT template is registered for an entity (PE) and a header, and operators drop a
// PE–template–header triple that does not match after the gateway has charged (operator audit,
// rules, finding 3). Through the real server on both engines: a send naming another entity than
// its template's, or going from another header than its template's, is refused before any
// charge in each family's dialect (v2, bulk, schedule: 422 dlt_template_mismatch; legacy and XML
// -8; the SMPP server's DLT template status); a template without an entity or header fits any;
// the same text registered for two headers or entities is sent with the template of the send's.
import { beforeAll, expect, it } from "vitest";
import { STATUS } from "../../../src/channels/smpp-server/status.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { credentials, legacy, operatorCall } from "../../helpers/legacy.js";
import { balanceOf, FAST_SIMULATOR, keyOf } from "../../helpers/sms.js";
import { countDebits, FAMILIES, sendOn } from "../../helpers/sms-families.js";
import { boundEsme, smppAccount } from "../smpp-server/client.js";

const E1 = "1101160000000000001";
const E2 = "1101160000000000002";
const ORDER_TEMPLATE = "1107160000000000002";
const TICKET_TEMPLATE = "1107160000000000004";
const TICKET_SWBRD_TEMPLATE = "1107160000000000005";
const ORDER = "Order A17 has shipped.";
const TICKET = "Ticket 55 booked.";

describeEachEngine("DLT template, entity and header sent together", (engine) => {
  const gateway = useTestGateway(engine, {
    env: { ...FAST_SIMULATOR, LEGACY_THROTTLE_PER_SECOND: "0", SMPP_SERVER_PORT: "auto" },
  });
  let operator: TestAccount;
  const op = (method: string, path: string, json?: unknown) => operatorCall(gateway(), operator, method, path, json);

  /**
   * Scrubbing on; headers SWBRD and OTHERH, entities E1 (the default) and E2 white-listed; the
   * order template registered under E2, the ticket one for header OTHERH, the OTP one for neither.
   */
  async function dltAccount<T extends TestAccount>(made?: T): Promise<T> {
    const account = made ?? ((await buildAccount(gateway(), { dltScrubbing: true, credits: { sms: 1000 } })) as T);
    const u = account.username;
    await op("POST", `/accounts/${u}/sender-ids`, { sender: "OTHERH", approve: true });
    for (const header of ["SWBRD", "OTHERH"]) await op("POST", `/accounts/${u}/dlt/headers`, { header });
    for (const entity_id of [E1, E2]) await op("POST", `/accounts/${u}/dlt/entities`, { entity_id });
    await op("PATCH", `/accounts/${u}`, { default_dlt_entity_id: E1 });
    const templates = [
      { name: "order", content: "Order {#var#} has shipped.", dlt_template_id: ORDER_TEMPLATE, entity_id: E2 },
      { name: "ticket", content: "Ticket {#var#} booked.", dlt_template_id: TICKET_TEMPLATE, sender: "OTHERH" },
      { name: "otp", content: "Your OTP is {#var#}.", dlt_template_id: "1107160000000000001" },
    ];
    for (const template of templates) {
      expect((await op("POST", `/accounts/${u}/templates`, { ...template, approve: true })).status).toBeLessThan(300);
    }
    return account;
  }

  async function sent(t: TestGateway, account: TestAccount) {
    return t.db.store.db
      .selectFrom("messages")
      .select(["sender", "dlt_entity_id", "dlt_template_id"])
      .where("account_id", "=", account.id)
      .orderBy("id")
      .execute();
  }

  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
  });

  it("refuses a template sent under another entity than its own (v2 422, legacy -8), charging nothing", async () => {
    const t = gateway();
    const account = await dltAccount();
    const before = await balanceOf(t, account);
    for (const route of ["transactional", "promotional"]) {
      const sender = route === "promotional" ? "PROMOTIONAL" : "SWBRD";
      const v2 = await call(t, "POST", "/api/v2/sms/send", {
        headers: keyOf(account),
        json: { sender_id: sender, route, recipient: "9876543277", message: ORDER, dlt_entity_id: E1 },
      });
      expect(v2.status, v2.text).toBe(422);
      expect(v2.body.error).toMatchObject({
        code: "dlt_template_mismatch",
        dlt_template_id: ORDER_TEMPLATE,
        template_entity_id: E2,
        entity_id: E1,
      });
      expect(v2.body.message).toContain(
        `matches template ${ORDER_TEMPLATE}, registered for DLT entity ${E2}, not ${E1}`,
      );
    }
    for (const name of ["dlt_entity_id", "entityid"]) {
      const answer = await legacy(t, "/httpapi/send", {
        ...credentials(account),
        sender_id: "SWBRD",
        route: "T",
        phonenumber: "9876543277",
        message: ORDER,
        [name]: E1.toLowerCase(),
      });
      expect(answer.text, name).toBe("-8");
      expect(answer.headers.get("x-error-message")).toContain(`registered for DLT entity ${E2}, not ${E1}`);
    }
    expect(await balanceOf(t, account)).toBe(before);
    expect(await sent(t, account)).toEqual([]);
    // Its own entity, named or not (over the account's default E1), is sent.
    for (const json of [{ dlt_entity_id: E2 }, {}]) {
      const ok = await call(t, "POST", "/api/v2/sms/send", {
        headers: keyOf(account),
        json: { sender_id: "SWBRD", route: "transactional", recipient: "9876543277", message: ORDER, ...json },
      });
      expect(ok.status, ok.text).toBe(200);
    }
    // A template registered under no entity goes under the one named.
    const otp = await call(t, "POST", "/api/v2/sms/send", {
      headers: keyOf(account),
      json: {
        sender_id: "SWBRD",
        route: "transactional",
        recipient: "9876543277",
        message: "Your OTP is 1.",
        dlt_entity_id: E2,
      },
    });
    expect(otp.status, otp.text).toBe(200);
    expect((await sent(t, account)).map((row) => [row.dlt_entity_id, row.dlt_template_id])).toEqual([
      [E2, ORDER_TEMPLATE],
      [E2, ORDER_TEMPLATE],
      [E2, "1107160000000000001"],
    ]);
  });

  it("refuses a template sent from another header than its own on every family, charging nothing", async () => {
    const t = gateway();
    const account = await dltAccount();
    for (const family of FAMILIES) {
      const before = await balanceOf(t, account);
      const debits = await countDebits(t, account);
      const answer = await sendOn(t, account, family, { route: "T", message: TICKET, sender: "SWBRD" });
      const what = `${family}: ${answer.message ?? ""}`;
      expect(answer.accepted, what).toBe(false);
      if (family === "legacy" || family === "xml") expect(answer.code, what).toBe("-8");
      else {
        expect(answer.status, what).toBe(422);
        expect(answer.error, what).toMatchObject({
          code: "dlt_template_mismatch",
          dlt_template_id: TICKET_TEMPLATE,
          template_header: "OTHERH",
          header: "SWBRD",
        });
      }
      expect(answer.message, what).toContain(
        `matches template ${TICKET_TEMPLATE}, registered for the header OTHERH, not SWBRD it is sent from`,
      );
      expect(await countDebits(t, account), what).toBe(debits);
      expect(await balanceOf(t, account), what).toBe(before);
      // From its own header it goes; a template registered for no header goes from any.
      expect(
        (await sendOn(t, account, family, { route: "T", message: TICKET, sender: "OTHERH" })).accepted,
        family,
      ).toBe(true);
      expect(
        (await sendOn(t, account, family, { route: "T", message: "Your OTP is 7.", sender: "SWBRD" })).accepted,
      ).toBe(true);
    }
    // A header that is not white-listed is still that refusal (-32), not this one.
    // Approved without its DLT header (decision 0151's opt-out): sends from it meet -32.
    await op("POST", `/accounts/${account.username}/sender-ids`, { sender: "NOHDR", approve: true, dlt_header: false });
    expect((await sendOn(t, account, "legacy", { route: "T", message: TICKET, sender: "NOHDR" })).code).toBe("-32");
    const rows = await sent(t, account);
    expect(rows.filter((row) => row.dlt_template_id === TICKET_TEMPLATE).every((row) => row.sender === "OTHERH")).toBe(
      true,
    );
  });

  it("sends the same text registered for two headers with the template of the header it goes from", async () => {
    const t = gateway();
    const account = await dltAccount();
    await op("POST", `/accounts/${account.username}/templates`, {
      name: "ticket-swbrd",
      content: "Ticket {#var#} booked.",
      dlt_template_id: TICKET_SWBRD_TEMPLATE,
      sender: "SWBRD",
      approve: true,
    });
    for (const sender of ["SWBRD", "OTHERH"]) {
      expect((await sendOn(t, account, "v2", { route: "T", message: TICKET, sender })).accepted, sender).toBe(true);
    }
    expect((await sent(t, account)).map((row) => [row.sender, row.dlt_template_id])).toEqual([
      ["SWBRD", TICKET_SWBRD_TEMPLATE],
      ["OTHERH", TICKET_TEMPLATE],
    ]);
  });

  it("answers an SMPP client the DLT template status for a template sent from another header", async () => {
    const t = gateway();
    const account = await dltAccount(await smppAccount(t, {}, { dltScrubbing: true, credits: { sms: 100 } }));
    const client = await boundEsme(t, account, "transmitter");
    const submit = (source_addr: string) =>
      client.submit({ source_addr, destination_addr: "9876543210", short_message: TICKET });
    expect((await submit("SWBRD")).command_status).toBe(STATUS.SB_DLT_TEMPLATE);
    expect(await countDebits(t, account)).toBe(0);
    expect((await submit("OTHERH")).command_status).toBe(0);
  });
});
