// Every code of the voice family's short set (-1, -4, -5, -6, -7, -10, -12, -14), produced by
// a real request on each of the three paths (GET query, POST form, POST JSON), and the
// accepted call's charge. Answers are plain text with HTTP 200, never a JSON error or a 5xx.
import { sql } from "kysely";
import { beforeAll, expect, it } from "vitest";
import { updateAccount } from "../../../src/domain/accounts/index.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import {
  buildVoiceAccount,
  CALLER,
  callParams,
  expectBroadcastId,
  FAST_VOICE_SIMULATOR,
  PATHS,
  placeCall,
  type VoiceParams,
  type VoicePath,
  type VoiceResponse,
  voiceBalance,
} from "./helpers.js";

/** Text of n characters (n ≤ 26 · k): speech is estimated at 15 characters a second. */
const textOf = (n: number) => "abcdefghijklmnopqrstuvwxyz".repeat(Math.ceil(n / 26)).slice(0, n);
/** The number whose message insert the database refuses (a trigger the -14 test adds). */
const STORAGE_FAILS = "9876599999";

interface Fixture {
  /** 100 voice credits, CALLER approved. */
  caller: TestAccount;
  /** No voice credits (but SMS credits). */
  broke: TestAccount;
  /** 1 voice credit. */
  short: TestAccount;
  inactive: TestAccount;
  blocked: TestAccount;
  /** International calls enabled. */
  intl: TestAccount;
  /** No caller number approved. */
  noCaller: TestAccount;
}

type Who = keyof Fixture;

interface Refusal {
  name: string;
  code: number;
  as?: Who;
  params: VoiceParams;
}

const REFUSALS: Refusal[] = [
  { name: "no apikey", code: -1, params: { apikey: undefined } },
  { name: "empty apikey", code: -1, params: { apikey: "" } },
  { name: "blank apikey", code: -1, params: { apikey: "   " } },
  {
    name: "username and password instead of apikey",
    code: -1,
    params: { apikey: undefined, username: "u", password: "p" },
  },
  {
    name: "no apikey, nothing else either",
    code: -1,
    params: { apikey: undefined, from: undefined, to: undefined, text: undefined },
  },
  { name: "wrong apikey", code: -7, params: { apikey: "sb_not-a-real-key" } },
  { name: "wrong apikey and no from", code: -7, params: { apikey: "sb_not-a-real-key", from: undefined } },
  { name: "inactive account", code: -7, as: "inactive", params: {} },
  { name: "blocked account", code: -7, as: "blocked", params: {} },
  { name: "no from", code: -4, params: { from: undefined } },
  { name: "empty from", code: -4, params: { from: "" } },
  { name: "no from and no to", code: -4, params: { from: undefined, to: undefined } },
  { name: "no to", code: -5, params: { to: undefined } },
  { name: "empty to", code: -5, params: { to: " " } },
  { name: "no to and no text", code: -5, params: { to: undefined, text: undefined } },
  { name: "to too short", code: -5, params: { to: "12345" } },
  { name: "to with letters", code: -5, params: { to: "98765abcde" } },
  { name: "two numbers in to", code: -5, params: { to: "9876543210,9876543211" } },
  { name: "10 digits that are no mobile", code: -5, params: { to: "5876543210" } },
  { name: "STD code without its 0", code: -5, params: { to: "2240000000" } },
  { name: "premium-rate number", code: -5, as: "intl", params: { to: "+19005550123" } },
  { name: "invalid to before a too long text", code: -5, params: { to: "123", text: textOf(1001) } },
  { name: "no text", code: -6, params: { text: undefined } },
  { name: "empty text", code: -6, params: { text: "" } },
  { name: "blank text", code: -6, params: { text: " \n\t " } },
  { name: "no text and an unapproved from", code: -6, params: { text: undefined, from: "+912240000000" } },
  { name: "text of 1,001 characters", code: -6, params: { text: textOf(1001) } },
  { name: "text with a control character", code: -6, params: { text: "Your code\u0007 is 1234" } },
  { name: "text too long once & is escaped", code: -6, params: { text: "&".repeat(900) } },
  { name: "text too long before an empty wallet", code: -6, as: "broke", params: { text: textOf(1001) } },
  { name: "from not approved", code: -10, params: { from: "+912240000000" } },
  { name: "from approved for no one here", code: -10, as: "noCaller", params: {} },
  { name: "from not a number", code: -10, params: { from: "SWBRD" } },
  { name: "unapproved from before an invalid to", code: -10, params: { from: "+912240000000", to: "123" } },
  { name: "international to without international calls", code: -10, params: { to: "+447911123456" } },
  { name: "no voice credits", code: -12, as: "broke", params: {} },
  { name: "1 credit for a call of 2 units", code: -12, as: "short", params: { text: textOf(451) } },
];

type Answers = { what: string; response: VoiceResponse }[];

async function expectCode(answers: Answers, t: TestGateway, path: VoicePath, account: TestAccount, r: Refusal) {
  const what = `${path} ${r.name}`;
  const response = await placeCall(t, path, callParams(account, r.params));
  answers.push({ what, response });
  expect(response.status, what).toBe(200);
  expect(response.contentType, what).toMatch(/^text\/plain/);
  expect(response.text, what).toBe(String(r.code));
}

describeEachEngine("voice send: the short code set on every path", (engine) => {
  const gateway = useTestGateway(engine, { env: FAST_VOICE_SIMULATOR });
  const answers: Answers = [];
  let f: Fixture;

  beforeAll(async () => {
    const t = gateway();
    f = {
      caller: await buildVoiceAccount(t),
      broke: await buildVoiceAccount(t, { voice: 0 }),
      short: await buildVoiceAccount(t, { voice: 1 }),
      inactive: await buildVoiceAccount(t),
      blocked: await buildVoiceAccount(t),
      intl: await buildVoiceAccount(t),
      noCaller: await buildVoiceAccount(t, { caller: null }),
    };
    const deps = [t.db.store, t.clock] as const;
    await updateAccount(...deps, f.inactive.username, { status: "inactive" });
    await updateAccount(...deps, f.blocked.username, { status: "blocked" });
    await updateAccount(...deps, f.intl.username, { internationalEnabled: true });
  });

  for (const path of PATHS) {
    it(`${path}: each refusal answers its code and charges nothing`, async () => {
      const t = gateway();
      const before = new Map<Who, number>();
      for (const who of Object.keys(f) as Who[]) before.set(who, await voiceBalance(t, f[who]));
      for (const r of REFUSALS) await expectCode(answers, t, path, f[r.as ?? "caller"], r);
      for (const who of Object.keys(f) as Who[]) expect(await voiceBalance(t, f[who]), who).toBe(before.get(who));
      const rows = await t.db.store.db.selectFrom("messages").select("id").where("channel", "=", "voice").execute();
      expect(rows).toEqual([]);
    });
  }

  it("answers -14 on all three paths when the database refuses the call, without a charge or a trace", async () => {
    const t = gateway();
    if (engine === "sqlite") {
      await sql`create trigger voice_storage_fails before insert on messages when new.recipient = ${sql.lit(STORAGE_FAILS)}
                begin select raise(abort, 'simulated storage failure'); end`.execute(t.db.store.db);
    } else {
      await sql`create function voice_storage_fails() returns trigger language plpgsql as $$
                begin
                  if new.recipient = ${sql.lit(STORAGE_FAILS)} then raise exception 'simulated storage failure'; end if;
                  return new;
                end $$`.execute(t.db.store.db);
      await sql`create trigger voice_storage_fails before insert on messages
                for each row execute function voice_storage_fails()`.execute(t.db.store.db);
    }
    try {
      const before = await voiceBalance(t, f.caller);
      for (const path of PATHS) {
        await expectCode(answers, t, path, f.caller, {
          name: "storage fails",
          code: -14,
          params: { to: STORAGE_FAILS },
        });
      }
      expect(await voiceBalance(t, f.caller)).toBe(before);
      // Other calls are unaffected.
      expectBroadcastId(await placeCall(t, "GET", callParams(f.caller)), f.caller);
      expect(await voiceBalance(t, f.caller)).toBe(before - 1);
    } finally {
      await sql`drop trigger voice_storage_fails${sql.raw(engine === "sqlite" ? "" : " on messages")}`.execute(
        t.db.store.db,
      );
    }
  });

  it("places no call for a HEAD request", async () => {
    const t = gateway();
    const query = new URLSearchParams(callParams(f.caller) as Record<string, string>).toString();
    const calls = () =>
      t.db.store.db.selectFrom("messages").select("id").where("account_id", "=", f.caller.id).execute();
    const before = (await calls()).length;
    const head = await fetch(`${t.url}/voicecall/v1/send?${query}`, { method: "HEAD" });
    // 405, Allow: GET (decision 0186's addendum; test/app/method-answers.test.ts).
    expect(head.status).toBe(405);
    expect(head.headers.get("allow")).toBe("GET");
    expect(await calls()).toHaveLength(before);
  });

  it("reads a JSON body it cannot parse, or a body of another type, as no body", async () => {
    const t = gateway();
    const post = (path: string, type: string, body: string, query = "") =>
      fetch(`${t.url}${path}${query}`, { method: "POST", headers: { "content-type": type }, body }).then(
        async (r) => [r.status, await r.text()] as const,
      );
    const key = `?apikey=${encodeURIComponent(f.caller.apiKey)}`;
    expect(await post("/voicecall/v1/jpost/send", "application/json", '{"apikey": "x", "from":')).toEqual([200, "-1"]);
    expect(await post("/voicecall/v1/jpost/send", "application/json", "", key)).toEqual([200, "-4"]);
    expect(await post("/voicecall/v1/jpost/send", "application/json", '["not", "an", "object"]', key)).toEqual([
      200,
      "-4",
    ]);
    expect(await post("/voicecall/v1/post/send", "text/plain", "from=+918047110000", key)).toEqual([200, "-4"]);
    // A body far larger than any accepted text: -6, read no further.
    const huge = `apikey=${f.caller.apiKey}&from=${CALLER}&to=9876543210&text=${"a".repeat(70_000)}`;
    expect(await post("/voicecall/v1/post/send", "application/x-www-form-urlencoded", huge)).toEqual([200, "-6"]);
  });

  it("reads a form or a JSON object on either POST path, whichever the Content-Type names", async () => {
    const t = gateway();
    const params = callParams(f.caller) as Record<string, string>;
    const post = async (path: string, type: string, body: string) => {
      const response = await fetch(`${t.url}${path}`, { method: "POST", headers: { "content-type": type }, body });
      return {
        status: response.status,
        contentType: response.headers.get("content-type"),
        headers: response.headers,
        text: await response.text(),
      };
    };
    const form = new URLSearchParams(params).toString();
    expectBroadcastId(await post("/voicecall/v1/jpost/send", "application/x-www-form-urlencoded", form), f.caller);
    expectBroadcastId(await post("/voicecall/v1/post/send", "application/json", JSON.stringify(params)), f.caller);
    // A refusal is the bare code, as documented: the reason is in the log of refusals.
    const refused = await post("/voicecall/v1/post/send", "application/json", JSON.stringify({ ...params, to: "" }));
    expect([refused.text, refused.headers.get("x-error-message")]).toEqual(["-5", null]);
  });

  it("accepts a call on every path, charges one credit per started 30 s of estimated speech", async () => {
    const t = gateway();
    const account = await buildVoiceAccount(t, { voice: 20 });
    const cases: [VoicePath, VoiceParams, number][] = [
      ["GET", {}, 1],
      // 450 characters are 30 s of speech: one unit; 451 start a second one.
      ["FORM", { text: textOf(450) }, 1],
      ["JSON", { text: textOf(451) }, 2],
      ["GET", { text: textOf(1000) }, 3],
      // Numbers in the forms SMS takes, a JSON number, a caller number written nationally.
      ["FORM", { to: "+91 98765-43210", from: "080 4711 0000" }, 1],
      ["JSON", { to: 9876543210 }, 1],
      ["GET", { to: "09876543210", from: "918047110000" }, 1],
    ];
    let spent = 0;
    for (const [path, params, units] of cases) {
      const what = `${path} ${JSON.stringify(params).slice(0, 60)}`;
      const id = expectBroadcastId(await placeCall(t, path, callParams(account, params)), account, what);
      spent += units;
      expect(await voiceBalance(t, account), what).toBe(20 - spent);
      const row = await t.db.store.db
        .selectFrom("messages")
        .selectAll()
        .where("broadcast_id", "=", id)
        .executeTakeFirstOrThrow();
      expect(row, what).toMatchObject({
        channel: "voice",
        wallet: "voice",
        route: "voice",
        recipient: "9876543210",
        sender: CALLER,
        segments: units,
        credits: units * 1000,
      });
      expect(JSON.parse(row.meta ?? "{}").units, what).toBe(units);
      const debit = await t.db.store.db
        .selectFrom("ledger_entries")
        .select(["amount", "kind", "wallet"])
        .where("ref", "=", id)
        .execute();
      expect(debit, what).toEqual([{ amount: -units * 1000, kind: "debit", wallet: "voice" }]);
    }
    // Exactly the balance: a call of 3 units with 3 left is accepted, the next is -12.
    const three = await buildVoiceAccount(t, { voice: 3 });
    expectBroadcastId(await placeCall(t, "JSON", callParams(three, { text: textOf(901) })), three);
    expect((await placeCall(t, "JSON", callParams(three))).text).toBe("-12");
    expect(await voiceBalance(t, three)).toBe(0);
  });

  it("calls an international number only for accounts with international calls, and stores it in E.164", async () => {
    const t = gateway();
    const id = expectBroadcastId(await placeCall(t, "FORM", callParams(f.intl, { to: "0044 7911 123456" })), f.intl);
    const row = await t.db.store.db
      .selectFrom("messages")
      .select(["recipient", "credits"])
      .where("broadcast_id", "=", id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ recipient: "+447911123456", credits: 1000 });
    // An Indian landline needs no such switch.
    expectBroadcastId(await placeCall(t, "GET", callParams(f.caller, { to: "011 4000 0000" })), f.caller);
  });

  it("never answered anything outside the short set, a JSON page or an HTTP 5xx", () => {
    expect(answers.length).toBeGreaterThan(REFUSALS.length * 3);
    for (const { what, response } of answers) {
      expect(response.status, what).toBe(200);
      expect(["-1", "-4", "-5", "-6", "-7", "-10", "-12", "-14"], what).toContain(response.text);
    }
  });
});
