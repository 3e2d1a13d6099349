// Every SMS rule of issue 40 on every family from one table: the same input gets the same decision
// on v2 send, v2 bulk, v2 schedule, legacy, XML and the SMPP server, each in its dialect (v2's
// code and fields, legacy and XML's negative code with X-Error-Message, the SMPP server's
// command_status). The rows are the examples of the public DLT guidance each comment names; a
// refusal charges nothing, a promotional send outside the hours is accepted and held. The rules'
// finer cases stay in their own files (dlt-links, dlt-chains, dlt-strict-matching, promo-hours).
import { DateTime } from "luxon";
import { beforeAll, expect, it } from "vitest";
import type { ErrorCode } from "../../../src/base/core/errors.js";
import { statusOfRefusal } from "../../../src/channels/smpp-server/status.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { operatorCall } from "../../helpers/legacy.js";
import { balanceOf, FAST_SIMULATOR } from "../../helpers/sms.js";
import { countDebits, FAMILIES, type FamilyAnswer, type FamilySend, sendOn } from "../../helpers/sms-families.js";
import { boundEsme, type EsmeClient, type SmppAccount, smppAccount } from "../smpp-server/client.js";

const ENTITY = "1101160000000000071";
const TM = "1702000000000000071";
const OPERATOR_TM = "1702000000000000099";
const IST = "Asia/Kolkata";

const HELD_TEXT = "Sale today: 20% off";
const TEMPLATES = ["Get the app at {#var#} today", "Dear {#var#},\nyour OTP is {#var#}. Do not share it."];

/** A one-hour promotional window that excludes the time the test runs (IST). */
function windowExcludingNow(): { window: string; opens: string } {
  const hour = DateTime.now().setZone(IST).hour;
  return hour < 12 ? { window: "15:00-16:00", opens: "15:00" } : { window: "03:00-04:00", opens: "03:00" };
}

/** How a refused row is answered: the code, its legacy number, what v2 names, the explanation's phrase. */
interface Refusal {
  code: ErrorCode;
  legacy: string;
  /** What the refusal names (v2's error.url / error.number), or where strict matching stopped. */
  fields?: Record<string, unknown>;
  /** A phrase of the explanation every family that has one carries. */
  says: string;
}

interface Row {
  rule: "url" | "callback" | "chain" | "strict" | "promo";
  name: string;
  as: "dlt" | "noChain";
  send: FamilySend;
  /** undefined: accepted. */
  refused?: Refusal;
  /** Accepted and held until the promotional window opens. */
  held?: boolean;
}

/** A text the entity's approved URLs do not cover: every family names the link as written. */
function unlistedLink(name: string, message: string, url: string): Row {
  const refused = { code: "dlt_url_not_whitelisted", legacy: "-8", fields: { url }, says: url } as const;
  return { rule: "url", name, as: "dlt", send: { route: "T", message }, refused };
}

/** A text with a number the entity's callback numbers do not cover. */
function unlistedNumber(name: string, message: string, number: string): Row {
  const refused = { code: "dlt_callback_not_whitelisted", legacy: "-8", fields: { number }, says: number } as const;
  return { rule: "callback", name, as: "dlt", send: { route: "P", message }, refused };
}

/** A text the rules let through (`held`: accepted and held until the promotional hours). */
function passes(rule: Row["rule"], name: string, send: FamilySend, held?: true): Row {
  return { rule, name, as: "dlt", send, ...(held ? { held } : {}) };
}

const ROWS: Row[] = [
  // TRAI, Direction of 20 August 2024 to access providers on the misuse of headers and content
  // templates: from 1 October 2024 (after an extension from 1 September) no traffic with URLs,
  // APKs or OTT links that are not white-listed. Examples: an APK link, an OTT (WhatsApp) link,
  // a link in a variable with a space around its dot, and a white-listed link in another form.
  unlistedLink(
    "an APK link that is not white-listed, in a {#var#}",
    "Get the app at http://bad.example/app.apk today",
    "http://bad.example/app.apk",
  ),
  unlistedLink("an OTT link that is not white-listed", "Get the app at wa.me/919811122233 today", "wa.me/919811122233"),
  unlistedLink("a link split by a space around its dot", "Get the app at evil. com today", "evil. com"),
  passes("url", "a white-listed link, other scheme and case", {
    route: "T",
    message: "Get the app at http://WWW.Example.com/app today",
  }),
  // The same direction, for links to an IP address: a phone makes a link of a bare IPv4 address,
  // with or without a port or path (Android's autolink pattern, android.util.Patterns
  // AUTOLINK_WEB_URL, takes an IP address for a host and the path as optional), so it is a link
  // here too (decision 0133). Amounts, versions, dates and times are never links.
  unlistedLink("an APK link to a bare IP address", "Get the app at 1.2.3.4/app.apk today", "1.2.3.4/app.apk"),
  unlistedLink("a bare IP address with a port", "Get the app at 45.67.89.10:8080/x today", "45.67.89.10:8080/x"),
  unlistedLink("an IP address after http://", "Get the app at http://1.2.3.4 today", "http://1.2.3.4"),
  unlistedLink("a bare IP address alone, no port or path", "Get the app at 1.2.3.4 today", "1.2.3.4"),
  passes("url", "a white-listed IP address prefix", {
    route: "T",
    message: "Get the app at 103.21.58.4/offers/d10 today",
  }),
  passes("url", "amounts, versions, dates and times are not links", {
    route: "P",
    message: "Sale! Rs.1,499.00 off v1.2.3 and v2.0.1.4 till 12.05.2024, 10.30 a.m.",
  }),
  // The same direction: call-back numbers in the content must be white-listed too.
  unlistedNumber("a callback number that is not white-listed", "Sale! Call 98111 22233 for the offer", "98111 22233"),
  passes("callback", "a white-listed toll-free number, other form; amounts and times are not numbers", {
    route: "P",
    message: "Sale! Rs. 1,499.00 off, 10 a.m. to 6 p.m. Call 1800 123 4567",
  }),
  // TRAI's direction on the traceability of messages (the same direction, para 10(c)): from
  // December 2024 operators drop SMS whose principal entity has not bound its telemarketer
  // chain on the DLT platform.
  {
    rule: "chain",
    name: "an entity without a declared telemarketer chain",
    as: "noChain",
    send: { route: "T", message: "Get the app at https://example.com/app today" },
    refused: {
      code: "dlt_chain_missing",
      legacy: "-31",
      fields: { entity_id: ENTITY },
      says: "has no declared telemarketer chain",
    },
  },
  // The operators' DLT portals' content template guides (Jio TrueConnect, Airtel DLT, Vi
  // Vilpower, BSNL DLT): {#var#} stands for up to 30 characters, the rest must match the
  // registered text, line breaks and spaces included.
  {
    rule: "strict",
    name: "a space where the template has a line break",
    as: "dlt",
    send: { route: "T", message: "Dear Asha, your OTP is 4821. Do not share it." },
    refused: {
      code: "dlt_template_mismatch",
      legacy: "-8",
      fields: { position: 10, expected: "\nyour OTP is {#var#}. Do not share it." },
      says: "at character 10",
    },
  },
  {
    rule: "strict",
    name: "a variable of more than 30 characters",
    as: "dlt",
    send: { route: "T", message: `Dear ${"A".repeat(31)},\nyour OTP is 4821. Do not share it.` },
    refused: { code: "dlt_template_mismatch", legacy: "-8", says: "up to 30 characters" },
  },
  passes("strict", "as registered", { route: "T", message: "Dear Asha,\nyour OTP is 4821. Do not share it." }),
  // TRAI, Telecom Commercial Communications Customer Preference Regulations, 2018: promotional
  // communication only between 09:00 and 21:00. Here the account's own window excludes now.
  passes("promo", "a promotional send outside the hours", { route: "P", message: HELD_TEXT }, true),
  passes("promo", "a transactional send is never held", {
    route: "T",
    message: "Dear Asha,\nyour OTP is 4821. Do not share it.",
  }),
];

type Family = (typeof FAMILIES)[number] | "smpp";
const EVERY_FAMILY: Family[] = [...FAMILIES, "smpp"];

async function smppSend(client: EsmeClient, send: FamilySend): Promise<FamilyAnswer> {
  const answer = await client.submit({
    source_addr: send.route === "P" ? "PROMOTIONAL" : "SWBRD",
    destination_addr: "9876543210",
    service_type: send.route,
    short_message: send.message,
  });
  const status = answer.command_status as number;
  return status === 0 ? { accepted: true } : { accepted: false, code: `0x${status.toString(16).toUpperCase()}` };
}

/** How one family's dialect says a refusal: each checks what that dialect carries. */
type Dialect = (answer: FamilyAnswer, refused: Refusal, what: string) => void;

/** v2, bulk and schedule: 422, the catalogue's code with the fields naming the fault, the explanation. */
const v2Refusal: Dialect = (answer, refused, what) => {
  expect(answer.status, what).toBe(422);
  expect(answer.error, what).toMatchObject({ code: refused.code, ...refused.fields });
  expect(answer.message, what).toContain(refused.says);
};

/** Legacy and XML: the negative code as the body, the explanation in X-Error-Message. */
const legacyRefusal: Dialect = (answer, refused, what) => {
  expect(answer.code, what).toBe(refused.legacy);
  expect(answer.message, what).toContain(refused.says);
};

/** The SMPP server: the refusal's command_status (it has no explanation to carry). */
const smppRefusal: Dialect = (answer, refused, what) => {
  expect(answer.code, what).toBe(`0x${statusOfRefusal(refused.code).toString(16).toUpperCase()}`);
};

const DIALECTS: Record<Family, Dialect> = {
  v2: v2Refusal,
  bulk: v2Refusal,
  schedule: v2Refusal,
  legacy: legacyRefusal,
  xml: legacyRefusal,
  smpp: smppRefusal,
};

describeEachEngine("the SMS rules of issue 40 on every family, from one table", (engine) => {
  const gateway = useTestGateway(engine, {
    env: {
      ...FAST_SIMULATOR,
      LEGACY_THROTTLE_PER_SECOND: "0",
      DLT_CHAIN_REQUIRED: "1",
      DLT_TM_ID: OPERATOR_TM,
      SMPP_SERVER_PORT: "auto",
    },
  });
  const promo = windowExcludingNow();
  const accounts = {} as Record<Row["as"], SmppAccount>;

  async function dltAccount(t: TestGateway, chain: boolean): Promise<SmppAccount> {
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const op = (method: string, path: string, json?: unknown) => operatorCall(t, operator, method, path, json);
    const account = await smppAccount(t, {}, { dltScrubbing: true, credits: { sms: 10_000 } });
    const u = account.username;
    await op("POST", `/accounts/${u}/dlt/headers`, { header: "SWBRD" });
    await op("POST", `/accounts/${u}/dlt/entities`, { entity_id: ENTITY });
    for (const [i, content] of TEMPLATES.entries()) {
      await op("POST", `/accounts/${u}/templates`, { name: `t${i}`, content, entity_id: ENTITY, approve: true });
    }
    await op("POST", `/accounts/${u}/dlt/urls`, { entity_id: ENTITY, url: "https://example.com/app" });
    await op("POST", `/accounts/${u}/dlt/urls`, { entity_id: ENTITY, url: "103.21.58.4/offers/" });
    await op("POST", `/accounts/${u}/dlt/callbacks`, { entity_id: ENTITY, number: "1800-123-4567" });
    if (chain) await op("PUT", `/accounts/${u}/dlt/chains`, { entity_id: ENTITY, chain: [TM] });
    await op("PATCH", `/accounts/${u}`, { promo_hours: promo.window });
    return account;
  }

  beforeAll(async () => {
    const t = gateway();
    accounts.dlt = await dltAccount(t, true);
    accounts.noChain = await dltAccount(t, false);
  });

  it("decides each row alike on v2, bulk, schedule, legacy, XML and the SMPP server; refusals charge nothing", {
    timeout: 180_000,
  }, async () => {
    const t = gateway();
    const clients = {
      dlt: await boundEsme(t, accounts.dlt, "transmitter"),
      noChain: await boundEsme(t, accounts.noChain, "transmitter"),
    };
    const rules = new Set<Row["rule"]>();
    for (const family of EVERY_FAMILY) {
      for (const row of ROWS) {
        const account = accounts[row.as];
        const before = await balanceOf(t, account);
        const debits = await countDebits(t, account);
        const since = Date.now();
        const answer =
          family === "smpp" ? await smppSend(clients[row.as], row.send) : await sendOn(t, account, family, row.send);
        const what = `${family}: ${row.name}: ${answer.message ?? answer.code ?? ""}`;
        rules.add(row.rule);
        if (row.refused === undefined) {
          expect(answer.accepted, what).toBe(true);
          if (row.held) await expectHeld(t, account, since, family, what);
          continue;
        }
        expect(answer.accepted, what).toBe(false);
        DIALECTS[family](answer, row.refused, what);
        expect(await countDebits(t, account), what).toBe(debits);
        expect(await balanceOf(t, account), what).toBe(before);
      }
    }
    expect([...rules].sort()).toEqual(["callback", "chain", "promo", "strict", "url"]);
    clients.dlt.destroy();
    clients.noChain.destroy();
  });

  /**
   * What the send stored is held: its messages scheduled at the window's opening (IST), or for a
   * bulk send its part, which the expander fans out into messages when it is due.
   */
  async function expectHeld(t: TestGateway, account: SmppAccount, since: number, family: Family, what: string) {
    const db = t.db.store.db;
    const rows =
      family === "bulk"
        ? (
            await db
              .selectFrom("bulk_parts")
              .select(["status", "due_at"])
              .where("account_id", "=", account.id)
              .where("created_at", ">=", since)
              .where("body", "=", HELD_TEXT)
              .execute()
          ).map((row) => ({ ...row, status: row.status === "pending" ? "scheduled" : row.status }))
        : await db
            .selectFrom("messages")
            .select(["status", "due_at"])
            .where("account_id", "=", account.id)
            .where("created_at", ">=", since)
            .where("body", "=", HELD_TEXT)
            .execute();
    expect(rows.length, what).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.status, what).toBe("scheduled");
      expect(DateTime.fromMillis(row.due_at, { zone: IST }).toFormat("HH:mm"), `${what} (${family})`).toBe(promo.opens);
    }
  }
});
