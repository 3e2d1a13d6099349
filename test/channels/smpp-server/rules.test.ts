// The SMS rules over SMPP, on both engines, with the `smpp` package as the ESME: a submit refused
// by each rule answers the command_status that docs/smpp-server.md's refusal table gives (read
// from the page, so the page is what is tested), stores and charges nothing; the flood limit
// and a blocked account; DLT links and callback numbers not white-listed (0x40A, 0x40B), a
// telemarketer chain other than the declared one (0x40D, under the tag its setting names); DLT
// entity and template ids from the client's TLVs under the tags the settings name (0x1500 and
// 5377 here, not the defaults), else the account's default entity; data_sm through the same
// path, with its receipt.
import fs from "node:fs";
import smpp from "smpp";
import { beforeAll, expect, it } from "vitest";
import type { ErrorCode } from "../../../src/base/core/errors.js";
import { REFUSALS } from "../../../src/channels/smpp-server/index.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { operatorCall } from "../../helpers/legacy.js";
import { boundEsme, type EsmeClient, type SmppAccount, smppAccount, until } from "./client.js";

const ENTITY = "1101160000000000003";
const OTHER_ENTITY = "1101160000000000004";
const DND_NUMBER = "9800000031";
const OPTED_OUT = "9800000032";
const INTERNATIONAL = "447911123456";

smpp.addTLV("entity_by_setting", { id: 0x1500, type: smpp.types.tlv.cstring });
smpp.addTLV("template_by_setting", { id: 5377, type: smpp.types.tlv.cstring });
// A string (read by its length), not a cstring: the package keeps this name for 0x1400 in the
// whole process, and a cstring read of another test's octets TLV would run past its end.
smpp.addTLV("entity_default_tag", { id: 0x1400, type: smpp.types.tlv.string });
smpp.addTLV("tm_chain_by_setting", { id: 0x1502, type: smpp.types.tlv.cstring });

/** docs/smpp-server.md's table of refusals: error code → command_status. */
function documentedStatuses(): Map<string, number> {
  const page = fs.readFileSync(new URL("../../../docs/smpp-server.md", import.meta.url), "utf8");
  const rows = [...page.matchAll(/^\| `([a-z_]+)` \| `[A-Z_]+` \| (0x[0-9a-f]+) \|$/gm)];
  return new Map(rows.map((row) => [row[1]!, Number.parseInt(row[2]!, 16)]));
}

interface Fixture {
  plain: SmppAccount;
  /** DLT scrubbing on, header SWBRD and ENTITY white-listed, "Your OTP is {#var#}." approved with ENTITY. */
  dlt: SmppAccount;
  /** DLT scrubbing on, header SWBRD white-listed, a template approved, no entity. */
  noEntity: SmppAccount;
  broke: SmppAccount;
  tOnly: SmppAccount;
  /** International enabled, no international credits. */
  intl: SmppAccount;
}

interface Case {
  name: string;
  as: keyof Fixture;
  code: ErrorCode;
  fields: Record<string, unknown>;
  command?: "submit_sm" | "data_sm";
}

const CASES: Case[] = [
  { name: "invalid number", as: "plain", code: "invalid_recipient", fields: { destination_addr: "98765" } },
  { name: "number with letters", as: "plain", code: "invalid_recipient", fields: { destination_addr: "98765abcde" } },
  { name: "no sender", as: "plain", code: "missing_sender_id", fields: { source_addr: "" } },
  { name: "no text", as: "plain", code: "missing_message", fields: { short_message: "" } },
  { name: "unknown sender", as: "plain", code: "invalid_sender_id", fields: { source_addr: "NOSUCH" } },
  { name: "sender not approved", as: "plain", code: "route_not_approved", fields: { source_addr: "PENDNG" } },
  {
    name: "more than 10 parts",
    as: "plain",
    code: "message_too_long",
    fields: { short_message: undefined, message_payload: "a".repeat(1531) },
  },
  {
    name: "DLT template mismatch",
    as: "dlt",
    code: "dlt_template_mismatch",
    fields: { short_message: "Your code is 1234." },
  },
  {
    name: "DLT template mismatch: whitespace not as registered (strict matching)",
    as: "dlt",
    code: "dlt_template_mismatch",
    fields: { short_message: "Your  OTP is 1234." },
  },
  {
    name: "DLT header not white-listed",
    as: "dlt",
    code: "dlt_header_not_whitelisted",
    fields: { source_addr: "NOHDR" },
  },
  { name: "no DLT entity", as: "noEntity", code: "dlt_entity_not_whitelisted", fields: {} },
  {
    name: "DLT link not white-listed (in a {#var#})",
    as: "dlt",
    code: "dlt_url_not_whitelisted",
    fields: { short_message: "Your OTP is bit.ly/3xYz12." },
  },
  {
    name: "DLT callback number not white-listed",
    as: "dlt",
    code: "dlt_callback_not_whitelisted",
    fields: { short_message: "Your OTP is +91 98111 22233." },
  },
  {
    name: "DLT telemarketer chain in the TLV not the declared one",
    as: "dlt",
    code: "dlt_chain_mismatch",
    fields: { tm_chain_by_setting: `${ENTITY},1702000000000000999` },
  },
  {
    name: "DLT entity in the TLV not white-listed",
    as: "dlt",
    code: "dlt_entity_not_whitelisted",
    fields: { entity_by_setting: "1101999999999999999" },
  },
  {
    name: "DND number on the promotional route",
    as: "plain",
    code: "dnd_blocked",
    fields: { service_type: "P", source_addr: "PROMOTIONAL", destination_addr: DND_NUMBER },
  },
  {
    name: "opted out of promotional SMS",
    as: "plain",
    code: "recipient_opted_out",
    fields: { service_type: "P", source_addr: "PROMOTIONAL", destination_addr: OPTED_OUT },
  },
  { name: "no credits", as: "broke", code: "insufficient_credits", fields: {} },
  {
    name: "no international credits",
    as: "intl",
    code: "insufficient_international_credits",
    fields: { service_type: "I", destination_addr: INTERNATIONAL },
  },
  { name: "unknown route", as: "plain", code: "invalid_route", fields: { service_type: "X" } },
  {
    name: "PROMOTIONAL on route T",
    as: "plain",
    code: "route_sender_mismatch",
    fields: { source_addr: "PROMOTIONAL" },
  },
  { name: "numeric sender on route T", as: "plain", code: "route_sender_mismatch", fields: { source_addr: "123456" } },
  { name: "route not enabled", as: "tOnly", code: "route_not_approved", fields: { service_type: "P" } },
  {
    name: "international not enabled",
    as: "plain",
    code: "international_disabled",
    fields: { service_type: "I", destination_addr: INTERNATIONAL },
  },
  {
    name: "promotional sender not enabled",
    as: "plain",
    code: "promo_sender_disabled",
    fields: { service_type: "PS" },
  },
  {
    name: "NUL in the text",
    as: "plain",
    code: "content_not_allowed",
    fields: { data_coding: 3, short_message: Buffer.from("a\0b", "latin1") },
  },
  {
    name: "NUL inside the DLT template TLV",
    as: "plain",
    code: "invalid_request",
    fields: { template_by_setting: "1107\u00001234" },
  },
  {
    name: "invalid number over data_sm",
    as: "plain",
    code: "invalid_recipient",
    command: "data_sm",
    fields: { destination_addr: "98765", short_message: undefined, message_payload: "Your OTP is 1234." },
  },
];

/** Codes of the table a submit over SMPP cannot meet, and where their answer is tested instead. */
const ELSEWHERE: Partial<Record<ErrorCode, string>> = {
  account_inactive: "the blocked account test below",
  flood_limit_exceeded: "the flood limit test below",
  rate_limited: "SMPP's own limit answers ESME_RTHROTTLED (bind-submit.test.ts, session.test.ts)",
  unicode_not_allowed: "data_coding decides the alphabet: 0 is GSM-7, text 1 or 3 cannot carry goes as UCS-2",
  invalid_schedule: "schedule_delivery_time is refused by the SMPP layer (long-messages.test.ts)",
  duplicate_recipient: "a repeated submit_multi destination: test/domain/refusals/left-out.test.ts",
  dlt_chain_missing: "needs DLT_CHAIN_REQUIRED, off here: test/channels/sms/dlt-chains.test.ts",
};

const BASE = { source_addr: "SWBRD", destination_addr: "9876543210", short_message: "Your OTP is 1234." };

/** BASE with these fields; one given as undefined is left out (the package cannot encode it). */
function fieldsOf(changes: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries({ ...BASE, ...changes }).filter(([, value]) => value !== undefined));
}

describeEachEngine("SMPP server: the SMS rules, DLT ids from TLVs, data_sm", (engine) => {
  const gateway = useTestGateway(engine, {
    env: {
      SMPP_SERVER_PORT: "auto",
      SMPP_SERVER_DLT_ENTITY_TAG: "0x1500",
      SMPP_SERVER_DLT_TEMPLATE_TAG: "5377",
      SMPP_SERVER_DLT_TM_CHAIN_TAG: "0x1502",
      SIMULATOR_LATENCY_MS: "20",
      SIMULATOR_FAILURE_RATE: "0",
    },
  });
  let operator: TestAccount;
  let f: Fixture;
  const op = (method: string, path: string, json?: unknown) => operatorCall(gateway(), operator, method, path, json);

  beforeAll(async () => {
    const t = gateway();
    operator = await buildAccount(t, { role: "operator", sender: null });
    const [plain, dlt, noEntity, broke, tOnly, intl] = await Promise.all([
      smppAccount(t),
      smppAccount(t, {}, { dltScrubbing: true }),
      smppAccount(t, {}, { dltScrubbing: true }),
      smppAccount(t, {}, { credits: { sms: 0 } }),
      smppAccount(t),
      smppAccount(t, {}, { credits: { sms: 100 } }),
    ]);
    await op("POST", `/accounts/${plain.username}/sender-ids`, { sender: "PENDNG" });
    for (const account of [dlt, noEntity])
      await op("POST", `/accounts/${account.username}/dlt/headers`, { header: "SWBRD" });
    await op("POST", `/accounts/${dlt.username}/dlt/entities`, { entity_id: ENTITY });
    await op("PUT", `/accounts/${dlt.username}/dlt/chains`, { entity_id: ENTITY, chain: ["1702000000000000011"] });
    // Approved without its DLT header (decision 0151's opt-out): sends from it meet -32.
    await op("POST", `/accounts/${dlt.username}/sender-ids`, { sender: "NOHDR", approve: true, dlt_header: false });
    await op("POST", `/accounts/${dlt.username}/templates`, {
      name: "otp",
      content: "Your OTP is {#var#}.",
      entity_id: ENTITY,
      approve: true,
    });
    await op("POST", `/accounts/${noEntity.username}/templates`, {
      name: "otp",
      content: "Your OTP is {#var#}.",
      approve: true,
    });
    await op("PATCH", `/accounts/${tOnly.username}`, { routes: ["T"] });
    await op("PATCH", `/accounts/${intl.username}`, { international_enabled: true });
    await op("POST", "/dnd", { numbers: [DND_NUMBER] });
    await op("POST", `/accounts/${plain.username}/suppressions`, { numbers: [OPTED_OUT] });
    f = { plain, dlt, noEntity, broke, tOnly, intl };
  });

  const stored = async (t: TestGateway, accountId: number) =>
    (await t.db.store.db.selectFrom("messages").select("id").where("account_id", "=", accountId).execute()).length;

  it("answers each rule's refusal with the command_status of the documented table, storing nothing", async () => {
    const t = gateway();
    const documented = documentedStatuses();
    // The page and the code agree, code for code.
    expect(Object.fromEntries(documented)).toEqual(Object.fromEntries(REFUSALS));
    const clients = new Map<keyof Fixture, EsmeClient>();
    for (const [name, account] of Object.entries(f) as Array<[keyof Fixture, SmppAccount]>) {
      clients.set(name, await boundEsme(t, account, "transmitter"));
    }
    for (const c of CASES) {
      const answer = await clients.get(c.as)!.request(c.command ?? "submit_sm", fieldsOf(c.fields));
      expect.soft(answer.command_status, `${c.name} (${c.code})`).toBe(documented.get(c.code));
      expect.soft(answer.command, c.name).toBe(`${c.command ?? "submit_sm"}_resp`);
    }
    for (const [who, account] of Object.entries(f)) expect(await stored(t, account.id), who).toBe(0);
    // Every code of the table is met here or where ELSEWHERE says.
    const walked = new Set<string>([...CASES.map((c) => c.code), ...Object.keys(ELSEWHERE)]);
    expect([...documented.keys()].filter((code) => !walked.has(code))).toEqual([]);
  });

  it("counts SMPP sends against the flood limit, refusing past it with its status", async () => {
    const t = gateway();
    const account = await smppAccount(t);
    await op("PATCH", `/accounts/${account.username}`, { flood_limit: 2 });
    const client = await boundEsme(t, account, "transmitter");
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await client.submit(BASE)).command_status);
    expect(statuses).toEqual([0, 0, documentedStatuses().get("flood_limit_exceeded")]);
    expect(await stored(t, account.id)).toBe(2);
  });

  it("unbinds the clients of an account that is blocked, and refuses its binds", async () => {
    const t = gateway();
    const account = await smppAccount(t);
    const client = await boundEsme(t, account, "transceiver");
    expect((await client.submit(BASE)).command_status).toBe(0);
    await op("PATCH", `/accounts/${account.username}`, { status: "blocked" });
    await until(() => client.closed, 5_000, "the blocked account's client unbound");
    expect(client.unbinds).toBe(1);
    const again = await boundEsme(t, account).catch((error: Error) => error.message);
    expect(again).toBe(`bind refused: ${0x0d}`);
  });

  it("takes the DLT entity and template ids from the TLVs the settings name, else the account's default entity", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { dltScrubbing: true });
    await op("POST", `/accounts/${account.username}/dlt/headers`, { header: "SWBRD" });
    for (const entity_id of [ENTITY, OTHER_ENTITY]) {
      await op("POST", `/accounts/${account.username}/dlt/entities`, { entity_id });
    }
    await op("PATCH", `/accounts/${account.username}`, { default_dlt_entity_id: ENTITY });
    await op("POST", `/accounts/${account.username}/templates`, {
      name: "otp",
      content: "Your OTP is {#var#}.",
      approve: true,
    });
    const client = await boundEsme(t, account, "transceiver");
    const send = async (fields: Record<string, unknown>, command = "submit_sm") => {
      const answer = await client.request(command, fieldsOf(fields));
      expect(answer.command_status, JSON.stringify(fields)).toBe(0);
      return t.db.store.db
        .selectFrom("messages")
        .select(["dlt_entity_id", "dlt_template_id", "body"])
        .where("id", "=", answer.message_id as string)
        .executeTakeFirstOrThrow();
    };
    expect(await send({})).toMatchObject({ dlt_entity_id: ENTITY, dlt_template_id: null });
    expect(await send({ entity_by_setting: OTHER_ENTITY, template_by_setting: "1107000000000000777" })).toMatchObject({
      dlt_entity_id: OTHER_ENTITY,
      dlt_template_id: "1107000000000000777",
    });
    // Under the default tags, which these settings replaced: not read.
    expect(await send({ entity_default_tag: OTHER_ENTITY })).toMatchObject({ dlt_entity_id: ENTITY });
    // data_sm carries them the same way, its text in message_payload.
    expect(
      await send(
        {
          short_message: undefined,
          message_payload: "Your OTP is 9876.",
          entity_by_setting: OTHER_ENTITY,
          template_by_setting: "1107000000000000778",
        },
        "data_sm",
      ),
    ).toEqual({ dlt_entity_id: OTHER_ENTITY, dlt_template_id: "1107000000000000778", body: "Your OTP is 9876." });
  });

  it("accepts data_sm like submit_sm: its id known to the status API, charged, with its receipt", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    const client = await boundEsme(t, account, "transceiver");
    const answer = await client.request("data_sm", {
      source_addr: "SWBRD",
      destination_addr: "919876543211",
      registered_delivery: 1,
      data_coding: 8,
      message_payload: Buffer.from("नमस्ते, data_sm", "utf16le").swap16(),
    });
    expect(answer.command).toBe("data_sm_resp");
    expect(answer.command_status).toBe(0);
    const id = answer.message_id as string;
    const status = await call(t, "GET", `/api/v2/sms/status/${id}`, {
      headers: { authorization: `Bearer ${account.apiKey}` },
    });
    expect(status.body.data).toMatchObject({ message_id: id, mobile: "9876543211" });
    const row = await t.db.store.db
      .selectFrom("messages")
      .select(["body", "encoding", "segments"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ body: "नमस्ते, data_sm", encoding: "ucs2", segments: 1 });
    const [receipt] = await client.waitDelivered(1);
    expect(receipt!.receipted_message_id).toBe(id);
    expect(receipt!.message_state).toBe(2);
  });
});
