// DLT link and callback white-lists (issue 40, item 1) on every HTTP family from one table: the
// same text gets the same decision on v2 send, v2 bulk, v2 schedule, legacy and XML, each in its
// dialect (422 dlt_url_not_whitelisted / dlt_callback_not_whitelisted naming the link, -8), and a
// refused send stores and charges nothing. The operator's lists (bad inputs refused), the
// account's request pending until the operator approves it, and the refusal log. SMPP server:
// test/channels/smpp-server/rules.test.ts's table.
import { beforeAll, expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { credentials, operatorCall, pushsms, xmlSend } from "../../helpers/legacy.js";
import { balanceOf, FAST_SIMULATOR, keyOf } from "../../helpers/sms.js";
import { countDebits, FAMILIES, type Family, sendOn } from "../../helpers/sms-families.js";
import { until } from "../smpp-server/client.js";

const ENTITY = "1101160000000000041";
const OTHER_ENTITY = "1101160000000000042";

interface Case {
  name: string;
  route: "T" | "P";
  message: string;
  /** undefined: accepted. */
  code?: "dlt_url_not_whitelisted" | "dlt_callback_not_whitelisted";
  /** What the refusal names. */
  named?: string;
}

const TEMPLATES = [
  "Get the app at https://example.com/app today",
  "Get the app at {#var#} today",
  "Your OTP is {#var#}.",
];

const CASES: Case[] = [
  { name: "approved link in the template's fixed text", route: "T", message: TEMPLATES[0]! },
  {
    name: "approved link in a {#var#}, other written form",
    route: "T",
    message: "Get the app at WWW.example.com/app today",
  },
  {
    name: "unlisted APK link",
    route: "T",
    message: "Get the app at http://bad.example/app.apk today",
    code: "dlt_url_not_whitelisted",
    named: "http://bad.example/app.apk",
  },
  {
    name: "{#var#} value that is a URL",
    route: "T",
    message: "Your OTP is https://evil.example/x.",
    code: "dlt_url_not_whitelisted",
    named: "https://evil.example/x",
  },
  {
    name: "www. without scheme",
    route: "T",
    message: "Get the app at www.evil.com today",
    code: "dlt_url_not_whitelisted",
    named: "www.evil.com",
  },
  {
    name: "a link split by spaces around its dot in a {#var#}",
    route: "T",
    message: "Get the app at evil. com today",
    code: "dlt_url_not_whitelisted",
    named: "evil. com",
  },
  // Named as written (docs/api.md: error.url), not as read (http://evil.com, evil.com.now).
  {
    name: "a defanged link, named as written",
    route: "P",
    message: "Sale! See hxxp://evil[.]com today",
    code: "dlt_url_not_whitelisted",
    named: "hxxp://evil[.]com",
  },
  {
    name: "a link whose host is joined across a sentence end, named as written",
    route: "P",
    message: "Sale! See https://evil.com. now",
    code: "dlt_url_not_whitelisted",
    named: "https://evil.com. now",
  },
  // User info: the host a browser opens follows the last @ (an approved host before it does not count).
  {
    name: "a link with user info",
    route: "T",
    message: "Get the app at https://u@evil.com/x today",
    code: "dlt_url_not_whitelisted",
    named: "https://u@evil.com/x",
  },
  {
    name: "a link with a user and password",
    route: "P",
    message: "Sale! Log in at https://user:pw@evil.com/login",
    code: "dlt_url_not_whitelisted",
    named: "https://user:pw@evil.com/login",
  },
  {
    name: "an approved host as the user info of another host",
    route: "P",
    message: "Sale! See http://shop.example.in@evil.com/offers/ now",
    code: "dlt_url_not_whitelisted",
    named: "http://shop.example.in@evil.com/offers/",
  },
  {
    name: "an approved host after a backslash and @ (a browser opens the host before them)",
    route: "P",
    message: "Sale! See https://evil.com\\@shop.example.in/offers/ now",
    code: "dlt_url_not_whitelisted",
    named: "https://evil.com\\@shop.example.in/offers/",
  },
  // IPv6 addresses with a scheme are links (without one they are not found).
  {
    name: "an APK link to an IPv6 address",
    route: "T",
    message: "Get the app at http://[2001:db8::1]/app.apk today",
    code: "dlt_url_not_whitelisted",
    named: "http://[2001:db8::1]/app.apk",
  },
  {
    name: "an IPv6 address alone, with a scheme",
    route: "P",
    message: "Sale! See https://[2606:4700::1111] ok",
    code: "dlt_url_not_whitelisted",
    named: "https://[2606:4700::1111]",
  },
  {
    name: "under an approved IPv6 prefix, other written form",
    route: "P",
    message: "Sale! See https://[2001:db8:0::5]/offers/d10",
  },
  {
    name: "prose with sentence ends, amounts and times is not a link",
    route: "P",
    message: "Sale! Done. Come in. Rs. 500 off, 10 a.m. to 6 p.m. Thanks. In case of doubt, visit us. Thank you",
  },
  {
    name: "short link not listed",
    route: "T",
    message: "Get the app at bit.ly/3xYz12 today",
    code: "dlt_url_not_whitelisted",
    named: "bit.ly/3xYz12",
  },
  { name: "under an approved prefix", route: "P", message: "Sale! See https://shop.example.in/offers/diwali?x=1" },
  // TLDs in punycode are links (phones link them), and IDN hosts match in either form.
  ...["evil.xn--p1ai", "xn--e1afmkfd.xn--p1ai", "xn--e1afmkfd.xn--p1ai/x", "https://EVIL.XN--P1AI/app.apk"].map(
    (link): Case => ({
      name: `a link with a punycode TLD: ${link}`,
      route: "P",
      message: `Sale! See ${link} now`,
      code: "dlt_url_not_whitelisted",
      named: link,
    }),
  ),
  {
    name: "an IDN host approved in Unicode, written in punycode",
    route: "P",
    message: "Sale! See xn--e1afmkfd.xn--p1ai/offers/a now",
  },
  {
    name: "a punycode label that is not valid punycode",
    route: "P",
    message: "Sale! See evil.xn--zz now",
    code: "dlt_url_not_whitelisted",
    named: "evil.xn--zz",
  },
  {
    name: "beside an approved prefix",
    route: "P",
    message: "Sale! See shop.example.in/offer",
    code: "dlt_url_not_whitelisted",
    named: "shop.example.in/offer",
  },
  { name: "approved callback number, other written form", route: "P", message: "Sale! Call 1800-123-4567 now" },
  {
    name: "callback number not listed",
    route: "P",
    message: "Sale! Call +91 98111 22233 now",
    code: "dlt_callback_not_whitelisted",
    named: "+91 98111 22233",
  },
  { name: "amounts, times and codes are not numbers", route: "P", message: "Sale! Rs.1,499.00 at 10 a.m., code 4821" },
  // Brackets, dots and slashes inside a number (docs/api.md rule 14b), named as written.
  ...["(98765) 43211", "+91 (98765) 43211", "(987) 654-3211", "(+91) 98765 43211", "98765.43211", "98765/43211"].map(
    (number): Case => ({
      name: `callback number written ${number}`,
      route: "P",
      message: `Sale! Call ${number} now`,
      code: "dlt_callback_not_whitelisted",
      named: number,
    }),
  ),
  {
    name: "approved callback number written with dots and brackets",
    route: "P",
    message: "Sale! Call (1800) 123.4567",
  },
  {
    name: "dates, a time, amounts and a code beside each other are not numbers",
    route: "P",
    message: "Sale! 9.6.2024 10.30 to 30/06/2024 - 2024-07-01, Rs 98,765.43, code 482193",
  },
  {
    name: "a link approved for another entity",
    route: "P",
    message: "Sale! See other.example.com/x",
    code: "dlt_url_not_whitelisted",
    named: "other.example.com/x",
  },
];

/** v2's error.url or error.number. */
async function send(t: TestGateway, account: TestAccount, family: Family, c: Case) {
  const answer = await sendOn(t, account, family, c);
  return { ...answer, named: (answer.error?.url ?? answer.error?.number) as string | undefined };
}

describeEachEngine("DLT link and callback white-lists", (engine) => {
  const gateway = useTestGateway(engine, { env: { ...FAST_SIMULATOR, LEGACY_THROTTLE_PER_SECOND: "0" } });
  let operator: TestAccount;
  const op = (method: string, path: string, json?: unknown) => operatorCall(gateway(), operator, method, path, json);
  const admin = (method: string, path: string, json?: unknown) =>
    call(gateway(), method, `/admin/api${path}`, { headers: { authorization: `Bearer ${operator.apiKey}` }, json });

  /** Scrubbing on, header SWBRD, ENTITY the only entity (OTHER_ENTITY pending), the templates, the lists. */
  async function dltAccount(): Promise<TestAccount> {
    const account = await buildAccount(gateway(), { dltScrubbing: true, credits: { sms: 1000 } });
    const u = account.username;
    await op("POST", `/accounts/${u}/dlt/headers`, { header: "SWBRD" });
    await op("POST", `/accounts/${u}/dlt/entities`, { entity_id: ENTITY });
    for (const [i, content] of TEMPLATES.entries()) {
      await op("POST", `/accounts/${u}/templates`, { name: `t${i}`, content, entity_id: ENTITY, approve: true });
    }
    await op("POST", `/accounts/${u}/dlt/urls`, { entity_id: ENTITY, url: "https://example.com/app" });
    await op("POST", `/accounts/${u}/dlt/urls`, { entity_id: ENTITY, url: "shop.example.in/offers/" });
    await op("POST", `/accounts/${u}/dlt/callbacks`, { entity_id: ENTITY, number: "1800 123 4567" });
    return account;
  }

  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
  });

  it("decides every case alike on v2, bulk, schedule, legacy and XML; a refusal stores and charges nothing", {
    timeout: 120_000,
  }, async () => {
    const t = gateway();
    for (const family of FAMILIES) {
      const account = await dltAccount();
      // An approved link of another entity of the same account does not count for this one.
      await op("POST", `/accounts/${account.username}/dlt/entities`, { entity_id: OTHER_ENTITY });
      await op("POST", `/accounts/${account.username}/dlt/urls`, {
        entity_id: OTHER_ENTITY,
        url: "other.example.com/x",
      });
      await op("POST", `/accounts/${account.username}/dlt/urls`, {
        entity_id: ENTITY,
        url: "http://[2001:DB8::5]/offers/",
      });
      await op("POST", `/accounts/${account.username}/dlt/urls`, { entity_id: ENTITY, url: "пример.рф/offers/" });
      await op("PATCH", `/accounts/${account.username}`, { default_dlt_entity_id: ENTITY });
      for (const c of CASES) {
        const before = await balanceOf(t, account);
        const debits = await countDebits(t, account);
        const answer = await send(t, account, family, c);
        const what = `${family}: ${c.name}: ${answer.message ?? ""}`;
        if (c.code === undefined) {
          expect(answer.accepted, what).toBe(true);
          continue;
        }
        expect(answer.accepted, what).toBe(false);
        if (family === "legacy" || family === "xml") expect(answer.code, what).toBe("-8");
        else {
          expect(answer.status, what).toBe(422);
          expect(answer.code, what).toBe(c.code);
          expect(answer.named, what).toBe(c.named);
        }
        expect(answer.message, what).toContain(c.named!);
        // Nothing charged: no debit entry, the same balance (no failures on this simulator: no refunds).
        expect(await countDebits(t, account), what).toBe(debits);
        expect(await balanceOf(t, account), what).toBe(before);
      }
    }
  });

  it("refuses an XML batch whose one text has an unlisted link, as a template mismatch refuses it", async () => {
    const t = gateway();
    const account = await dltAccount();
    const debits = await countDebits(t, account);
    const answer = await xmlSend(
      t,
      pushsms(credentials(account), {
        route: "T",
        messages: [
          { pno: "9876543210", msg: TEMPLATES[0]! },
          { pno: "9876543211", msg: "Your OTP is bit.ly/x9." },
        ],
      }),
    );
    expect(answer.text).toBe("-8");
    expect(answer.headers.get("x-error-message")).toContain("bit.ly/x9");
    expect(await countDebits(t, account)).toBe(debits);
  });

  it("records the refusals in the refusal log with their code", async () => {
    const t = gateway();
    const account = await dltAccount();
    const refused = CASES.find((c) => c.code === "dlt_callback_not_whitelisted")!;
    expect((await send(t, account, "v2", refused)).code).toBe("dlt_callback_not_whitelisted");
    const found = async () =>
      (await call(t, "GET", "/api/v2/refusals?code=dlt_callback_not_whitelisted", { headers: keyOf(account) })).body
        .data as { code: string; answer: string }[];
    let rows: { code: string; answer: string }[] = [];
    await until(
      async () => {
        rows = await found();
        return rows.length > 0;
      },
      20_000,
      "the refusal logged",
    );
    expect(rows[0]).toMatchObject({ code: "dlt_callback_not_whitelisted", answer: "422 dlt_callback_not_whitelisted" });
  });

  it("lists, refuses bad input to, and removes from the operator's lists", async () => {
    const account = await dltAccount();
    const u = account.username;
    const listed = await op("GET", `/accounts/${u}/dlt/urls`);
    expect(listed.body.data.map((l: { url: string }) => l.url)).toEqual(["example.com/app", "shop.example.in/offers/"]);
    const callbacks = await op("GET", `/accounts/${u}/dlt/callbacks?entity_id=${ENTITY}`);
    expect(callbacks.body.data).toMatchObject([{ entity_id: ENTITY, number: "18001234567", status: "approved" }]);
    for (const [path, body, fragment] of [
      ["urls", { entity_id: ENTITY, url: "not a url" }, "is not a URL"],
      ["urls", { entity_id: ENTITY, url: "ftp://example.com/x" }, "scheme ftp"],
      ["urls", { entity_id: ENTITY, url: "" }, "empty"],
      ["urls", { entity_id: "1101999999999999999", url: "example.com" }, "not registered"],
      ["urls", { entity_id: "not an entity!", url: "example.com" }, "DLT entity ID"],
      ["callbacks", { entity_id: ENTITY, number: "12345" }, "not a callback number"],
      ["callbacks", { entity_id: ENTITY, number: "call me" }, "not a callback number"],
    ] as const) {
      const response = await admin("POST", `/accounts/${u}/dlt/${path}`, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.code).toBe("invalid_request");
      expect(response.body.message ?? response.body.error.message).toContain(fragment);
    }
    expect((await admin("POST", `/accounts/${u}/dlt/urls`, { entity_id: ENTITY })).status).toBe(400);
    expect((await admin("POST", "/accounts/nosuchuser/dlt/urls", { entity_id: ENTITY, url: "a.com" })).status).toBe(
      404,
    );
    const removed = await op("DELETE", `/accounts/${u}/dlt/urls`, {
      entity_id: ENTITY,
      url: "http://www.example.com/app",
    });
    expect(removed.body.data).toMatchObject({ entity_id: ENTITY, url: "example.com/app", removed: true });
    expect(
      (await admin("DELETE", `/accounts/${u}/dlt/urls`, { entity_id: ENTITY, url: "example.com/app" })).status,
    ).toBe(404);
    // Removed: the very next send is refused (caches drop the account at once).
    const again = await send(gateway(), account, "v2", { name: "", route: "T", message: TEMPLATES[0]! });
    expect(again.code).toBe("dlt_url_not_whitelisted");
  });

  it("takes the account's request pending, and lets it count only once the operator approves it", async () => {
    const t = gateway();
    const account = await dltAccount();
    const link = "https://app.example.com/a.apk";
    const c: Case = { name: "", route: "T", message: `Get the app at ${link} today` };
    const asked = await call(t, "POST", "/api/v2/dlt/urls", {
      headers: keyOf(account),
      json: { entity_id: ENTITY, url: link },
    });
    expect(asked.status, asked.text).toBe(201);
    expect(asked.body.data).toMatchObject({ entity_id: ENTITY, url: "app.example.com/a.apk", status: "pending" });
    const twice = await call(t, "POST", "/api/v2/dlt/urls", {
      headers: keyOf(account),
      json: { entity_id: ENTITY, url: link },
    });
    expect(twice.status).toBe(200);
    const bad = await call(t, "POST", "/api/v2/dlt/callbacks", {
      headers: keyOf(account),
      json: { entity_id: ENTITY, number: "4821" },
    });
    expect(bad.status).toBe(400);
    expect((await send(t, account, "v2", c)).code).toBe("dlt_url_not_whitelisted");
    const queue = await op("GET", "/approvals?kind=dlt_url");
    const item = queue.body.data.find((i: { account: string }) => i.account === account.username);
    expect(item).toMatchObject({ kind: "dlt_url", value: "app.example.com/a.apk", detail: `entity ${ENTITY}` });
    await op("POST", `/dlt/urls/${item.id}/approve`);
    expect((await send(t, account, "v2", c)).accepted).toBe(true);
    const mine = await call(t, "GET", "/api/v2/dlt", { headers: keyOf(account) });
    expect(mine.body.data.urls.map((l: { url: string; status: string }) => [l.url, l.status])).toContainEqual([
      "app.example.com/a.apk",
      "approved",
    ]);
  });

  it("finds a number written with Unicode dashes and spaces, named as written", async () => {
    const t = gateway();
    const account = await dltAccount();
    for (const number of ["98765\u201143211", "98765\u00a043211", "98765 \u2013 43211", "+91\u202f98765\u201243211"]) {
      const response = await call(t, "POST", "/api/v2/sms/send", {
        headers: keyOf(account),
        json: {
          sender_id: "PROMOTIONAL",
          route: "promotional",
          recipient: "9876543210",
          unicode: true,
          message: `Sale! Call ${number} now`,
        },
      });
      expect(response.status, response.text).toBe(422);
      expect(response.body.error).toMatchObject({ code: "dlt_callback_not_whitelisted", number });
    }
  });

  it("matches an IDN host approved in punycode when written in Unicode, and lists it in punycode", async () => {
    const t = gateway();
    const account = await dltAccount();
    const u = account.username;
    const approved = await op("POST", `/accounts/${u}/dlt/urls`, {
      entity_id: ENTITY,
      url: "XN--E1AFMKFD.XN--P1AI/app",
    });
    expect(approved.body.data).toMatchObject({ url: "xn--e1afmkfd.xn--p1ai/app" });
    const send = (message: string) =>
      call(t, "POST", "/api/v2/sms/send", {
        headers: keyOf(account),
        json: { sender_id: "PROMOTIONAL", route: "promotional", recipient: "9876543210", unicode: true, message },
      });
    expect((await send("Sale! See пример.рф/app now")).status).toBe(200);
    expect((await send("Sale! See https://ПРИМЕР.РФ/app now")).status).toBe(200);
    const other = await send("Sale! See пример.рф/other now");
    expect(other.status, other.text).toBe(422);
    expect(other.body.error).toMatchObject({ code: "dlt_url_not_whitelisted", url: "пример.рф/other" });
    const tld = await send("Sale! See evil.рф now");
    expect(tld.body.error).toMatchObject({ code: "dlt_url_not_whitelisted", url: "evil.рф" });
  });

  it("checks nothing on an account without scrubbing", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const answer = await send(t, account, "v2", { name: "", route: "T", message: "See bit.ly/x1 or call 9811122233" });
    expect(answer.accepted).toBe(true);
  });
});
