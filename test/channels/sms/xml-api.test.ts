// POST /xmlapi/send: a pushsms document in the form field xmlstring. One broadcast for the whole
// document, each message's own text stored, values kept as text (leading zeros, "+91"), and
// every document the gateway will not read answered -9, never a JSON error or -14.
import { beforeAll, expect, it } from "vitest";
import { MAX_XML_BYTES } from "../../../src/channels/sms/xml-send.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import {
  credentials,
  expectBroadcastId,
  legacy,
  operatorCall,
  type Params,
  pushsms,
  type TextResponse,
  xmlEscape,
  xmlSend,
} from "../../helpers/legacy.js";
import { FAST_SIMULATOR, statusOf } from "../../helpers/sms.js";

function expectCode(response: TextResponse, code: number, what = ""): void {
  expect({ status: response.status, text: response.text }, what).toEqual({ status: 200, text: String(code) });
  expect(response.headers.get("content-type"), what).toMatch(/^text\/plain/);
}

async function storedOf(t: TestGateway, account: TestAccount) {
  return t.db.store.db
    .selectFrom("messages")
    .select(["broadcast_id", "recipient", "body", "sender", "route"])
    .where("account_id", "=", account.id)
    .orderBy("recipient")
    .execute();
}

const ONE = [{ pno: "9876543210", msg: "hello" }];
/** A valid document without credentials. */
const BARE = '<pushsms><senderid>SWBRD</senderid><messages><message pno="9876543210" msg="hi"/></messages></pushsms>';

describeEachEngine("XML API: POST /xmlapi/send", (engine) => {
  const gateway = useTestGateway(engine, { env: { ...FAST_SIMULATOR, LEGACY_THROTTLE_PER_SECOND: "0" } });
  let operator: TestAccount;

  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
  });

  it("answers one broadcast id for a multi-message document and stores each message's own text", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const id = expectBroadcastId(
      await xmlSend(
        t,
        pushsms(credentials(account), {
          messages: [
            { pno: "9876543210", msg: "Dear Asha, your order 1 shipped." },
            { pno: "9876543211", msg: "Dear Ravi, your order 2 shipped." },
            { pno: "9876543212", msg: "Dear Meera, your order 3 shipped." },
          ],
        }),
      ),
      account,
    );
    expect(await storedOf(t, account)).toEqual([
      {
        broadcast_id: id,
        recipient: "9876543210",
        body: "Dear Asha, your order 1 shipped.",
        sender: "SWBRD",
        route: "transactional",
      },
      {
        broadcast_id: id,
        recipient: "9876543211",
        body: "Dear Ravi, your order 2 shipped.",
        sender: "SWBRD",
        route: "transactional",
      },
      {
        broadcast_id: id,
        recipient: "9876543212",
        body: "Dear Meera, your order 3 shipped.",
        sender: "SWBRD",
        route: "transactional",
      },
    ]);
    const status = await statusOf(t, account, id);
    expect(status.body.data.total).toBe(3);
    expect((await legacy(t, "/api/getcredits", credentials(account))).text).toBe("997");
  });

  it("keeps numbers and texts as text: leading zeros, +91, digits-only messages and credentials", async () => {
    const t = gateway();
    // Digits-only username and password with leading zeros: read as numbers they would not match.
    const username = `00${Math.floor(Math.random() * 1e8)}`;
    const password = "000123456789";
    await operatorCall(t, operator, "POST", "/accounts", { username, password, credits: { sms: 100 } });
    await operatorCall(t, operator, "POST", `/accounts/${username}/sender-ids`, { sender: "SWBRD", approve: true });
    await operatorCall(t, operator, "PATCH", `/accounts/${username}`, { dlt_scrubbing: false });
    const summary = await operatorCall(t, operator, "GET", `/accounts/${username}`);
    const account: TestAccount = { id: summary.body.data.id, username, password, apiKey: "" };

    const id = expectBroadcastId(
      await xmlSend(
        t,
        pushsms(
          { username, password },
          {
            messages: [
              { pno: "09876543210", msg: "007" },
              { pno: "+919876543211", msg: "1e3" },
              { pno: "919876543212", msg: "0x1A" },
              { pno: "+91 98765 43213", msg: "1234567890123456789012345" },
            ],
          },
        ),
      ),
      account,
    );
    expect((await storedOf(t, account)).map((m) => [m.broadcast_id, m.recipient, m.body])).toEqual([
      [id, "9876543210", "007"],
      [id, "9876543211", "1e3"],
      [id, "9876543212", "0x1A"],
      [id, "9876543213", "1234567890123456789012345"],
    ]);
  });

  it("decodes XML's entities and character references once, and leaves the text otherwise as written", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const doc =
      `<pushsms><username>${account.username}</username><password>${xmlEscape(account.password)}</password>` +
      "<senderid>SWBRD</senderid><messages>" +
      '<message pno="9876543210" msg="Fish &amp; chips &lt;today&gt; &quot;fresh&quot; &apos;hot&apos;"/>' +
      '<message pno="9876543211" msg="line one&#10;line two"/>' +
      '<message pno="9876543212" msg="Pay &#x20AC;5 or &#163;4"/>' +
      '<message pno="9876543213" msg="literal &amp;#10; stays"/>' +
      '<message pno="9876543214"><![CDATA[ignored body]]></message>' +
      "</messages></pushsms>";
    const answer = await xmlSend(t, doc);
    // The last message has no msg attribute: its element text is used.
    expectBroadcastId(answer, account);
    expect((await storedOf(t, account)).map((m) => m.body)).toEqual([
      `Fish & chips <today> "fresh" 'hot'`,
      "line one\nline two",
      "Pay €5 or £4",
      "literal &#10; stays",
      "ignored body",
    ]);
  });

  it("refuses DOCTYPE and entity declarations with -9, whatever they declare", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const body = pushsms(credentials(account), { messages: ONE }).replace(/^<\?xml[^>]*\?>/, "");
    const laughs =
      '<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">' +
      '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>';
    for (const [name, xml] of [
      ["plain DOCTYPE", `<!DOCTYPE pushsms>${body}`],
      ["internal entity", `<!DOCTYPE pushsms [<!ENTITY who "x">]>${body.replace("hello", "&who;")}`],
      ["external entity (XXE)", `<!DOCTYPE pushsms [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${body}`],
      ["billion laughs", `${laughs}${body.replace("hello", "&lol3;")}`],
      ["lower-case doctype", `<!doctype pushsms>${body}`],
      ["ENTITY without DOCTYPE", `${body}<!ENTITY x "y">`],
    ]) {
      expectCode(await xmlSend(t, xml), -9, name);
    }
    expect(await storedOf(t, account)).toEqual([]);
  });

  it("refuses an oversized document with -9, below and above the form body limit", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const filler = `<!--${"x".repeat(MAX_XML_BYTES)}-->`;
    const big = pushsms(credentials(account), { messages: ONE }).replace("<messages>", `${filler}<messages>`);
    expectCode(await xmlSend(t, big), -9, "just over the cap");
    // Percent-encoding triples < > " =: over the 4 MiB form limit before the gateway sees the field.
    const messages = Array.from({ length: 50_000 }, () => ({ pno: "9876543210", msg: "<<>>" }));
    const huge = pushsms(credentials(account), { messages });
    expect(new URLSearchParams({ xmlstring: huge }).toString().length).toBeGreaterThan(4 * 1024 * 1024);
    expectCode(await xmlSend(t, huge), -9, "over the form limit");
    expect(await storedOf(t, account)).toEqual([]);
  });

  it("refuses anything that is not a readable pushsms document with -9", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const good = pushsms(credentials(account), { messages: ONE });
    const cases: [string, string | undefined][] = [
      ["no xmlstring field", undefined],
      ["empty xmlstring", ""],
      ["blank xmlstring", "  \n "],
      ["not XML", "username=a&password=b"],
      ["unclosed root", good.replace("</pushsms>", "")],
      ["mismatched tags", good.replace("</senderid>", "</sender>")],
      ["two roots", `${good}<pushsms/>`],
      ["a second, other root", `${good}<extra/>`],
      ["username twice", good.replace("<password>", "<username>other</username><password>")],
      ["senderid twice", good.replace("<messages>", "<senderid>OTHER</senderid><messages>")],
      [
        "messages twice",
        good.replace("</pushsms>", '<messages><message pno="9876543211" msg="b"/></messages></pushsms>'),
      ],
      ["wrong root", good.replace(/pushsms>/g, "sms>").replace("<pushsms", "<sms")],
      ["root in other case", good.replace(/pushsms/g, "PushSMS")],
      ["text root", "<pushsms>hello</pushsms>"],
      ["attribute twice", good.replace('pno="9876543210"', 'pno="9876543210" pno="9876543211"')],
      ["reserved element name", good.replace("<messages>", "<__proto__><a>1</a></__proto__><messages>")],
      ["nested too deep", `<pushsms>${"<a>".repeat(5000)}${"</a>".repeat(5000)}</pushsms>`],
      ["NUL character reference", good.replace("hello", "hel&#0;lo")],
      ["surrogate character reference", good.replace("hello", "&#xD800;")],
    ];
    for (const [name, xml] of cases) expectCode(await xmlSend(t, xml), -9, name);
    // Raw XML instead of a form.
    const raw = await fetch(`${t.url}/xmlapi/send`, {
      method: "POST",
      headers: { "content-type": "text/xml" },
      body: good,
    });
    expectCode({ status: raw.status, headers: raw.headers, text: await raw.text() }, -9, "raw text/xml body");
    expect(await storedOf(t, account)).toEqual([]);
  });

  it("authenticates with the credentials inside the document: -1, -2, -7, and an API key", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const inside = (head: string) =>
      `<pushsms>${head}<senderid>SWBRD</senderid><messages><message pno="9876543210" msg="hi"/></messages></pushsms>`;
    const user = `<username>${account.username}</username>`;
    const cases: [string, string, number][] = [
      ["wrong password", `${user}<password>not-the-password</password>`, -7],
      ["unknown user", `<username>nobody_here</username><password>${xmlEscape(account.password)}</password>`, -7],
      ["wrong API key", "<apikey>sb_not-a-real-key</apikey>", -7],
      ["no credentials", "", -1],
      ["password only", `<password>${xmlEscape(account.password)}</password>`, -1],
      ["no password", user, -2],
      ["empty password", `${user}<password></password>`, -2],
    ];
    for (const [name, head, code] of cases) expectCode(await xmlSend(t, inside(head)), code, name);
    expect(await storedOf(t, account)).toEqual([]);

    expectBroadcastId(await xmlSend(t, inside(`<apikey>${account.apiKey}</apikey>`)), account, "apikey");
    expectBroadcastId(await xmlSend(t, inside(`<api_key>${account.apiKey}</api_key>`)), account, "api_key");
    expectBroadcastId(
      await xmlSend(t, inside(`${user}<password>${xmlEscape(account.password)}</password>`)),
      account,
      "password",
    );
  });

  it("takes api_key, apikey or username and password from the query or form when the document has none", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const post = (params: Params, query: Params = {}) =>
      legacy(
        t,
        `/xmlapi/send?${new URLSearchParams(query as Record<string, string>)}`,
        { ...params, xmlstring: BARE },
        "POST",
      );
    expectBroadcastId(await post({ api_key: account.apiKey }), account, "form api_key");
    expectBroadcastId(await post({ apikey: account.apiKey }), account, "form apikey");
    expectBroadcastId(await post(credentials(account)), account, "form username and password");
    expectBroadcastId(await post({}, { apikey: account.apiKey }), account, "query apikey");
    expectBroadcastId(await post({}, { api_key: account.apiKey }), account, "query api_key");
    expectBroadcastId(await post({}, credentials(account)), account, "query username and password");
    const get = await legacy(t, "/xmlapi/send", { apikey: account.apiKey, xmlstring: BARE });
    expectBroadcastId(get, account, "GET with the key and the document in the query");
    // Blank credential elements name no one: the form's are read.
    const blanks = BARE.replace("<senderid>", "<username></username><password/><senderid>");
    expectBroadcastId(
      await legacy(t, "/xmlapi/send", { api_key: account.apiKey, xmlstring: blanks }, "POST"),
      account,
      "blank elements",
    );
    expect(await storedOf(t, account)).toHaveLength(8);

    const cases: [string, Params, number][] = [
      ["wrong api_key", { api_key: "sb_not-a-real-key" }, -7],
      ["wrong apikey", { apikey: "sb_not-a-real-key" }, -7],
      ["wrong password", { ...credentials(account), password: "not-the-password" }, -7],
      ["username without a password", { username: account.username }, -2],
      ["password without a username", { password: account.password }, -1],
      ["empty api_key", { api_key: "" }, -1],
      ["none anywhere", {}, -1],
    ];
    for (const [name, params, code] of cases) expectCode(await post(params), code, name);
    expect(await storedOf(t, account)).toHaveLength(8);
  });

  it("reads only the document's credentials when it has any, whatever the query or form says", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const other = await buildAccount(t);
    const withHead = (head: string) => BARE.replace("<senderid>", `${head}<senderid>`);
    const post = (head: string, params: Params) =>
      legacy(t, "/xmlapi/send", { ...params, xmlstring: withHead(head) }, "POST");
    const userOf = (who: TestAccount) => `<username>${who.username}</username>`;
    const passwordOf = (who: TestAccount) => `<password>${xmlEscape(who.password)}</password>`;

    // The document names `other`: the form's key of `account` is not read, and sends nothing.
    const id = expectBroadcastId(
      await post(`<apikey>${other.apiKey}</apikey>`, { api_key: account.apiKey }),
      other,
      "document key and form key",
    );
    expectBroadcastId(await post(userOf(other) + passwordOf(other), credentials(account)), other, "document login");
    // The document's credentials are never completed or corrected from the form.
    const cases: [string, string, Params, number][] = [
      [
        "wrong password inside, right key beside",
        `${userOf(account)}<password>nope</password>`,
        { api_key: account.apiKey },
        -7,
      ],
      ["wrong key inside, right key beside", "<apikey>sb_not-a-real-key</apikey>", { apikey: account.apiKey }, -7],
      ["username inside, password beside", userOf(account), { password: account.password }, -2],
      ["password inside, username beside", passwordOf(account), { username: account.username }, -1],
    ];
    for (const [name, head, params, code] of cases) expectCode(await post(head, params), code, name);
    expect(await storedOf(t, account)).toEqual([]);
    expect((await storedOf(t, other)).map((m) => m.broadcast_id)).toContain(id);
  });

  it("answers a well-formed empty document with the code of what it lacks, not -9", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    for (const xml of [
      "<pushsms/>",
      "<pushsms></pushsms>",
      '<?xml version="1.0" encoding="UTF-8"?>\n<pushsms>\n</pushsms>',
      "<pushsms><!-- nothing yet --></pushsms>",
    ]) {
      expectCode(await xmlSend(t, xml), -1, xml);
      // With a key beside it the next thing missing is the sender ID, then the numbers (-5 before -6,
      // the spec's table order: decision 0186).
      expectCode(await legacy(t, "/xmlapi/send", { api_key: account.apiKey, xmlstring: xml }, "POST"), -4, xml);
    }
    const senderOnly = "<pushsms><senderid>SWBRD</senderid></pushsms>";
    expectCode(await legacy(t, "/xmlapi/send", { api_key: account.apiKey, xmlstring: senderOnly }, "POST"), -5);
    expect(await storedOf(t, account)).toEqual([]);
  });

  it("applies the SMS rules to the document, answering their codes", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const broke = await buildAccount(t, { credits: { sms: 0 } });
    const doc = (options: Parameters<typeof pushsms>[1], who: TestAccount = account) =>
      pushsms(credentials(who), options);
    const cases: [string, string, number][] = [
      ["unknown sender", doc({ sender: "NOSUCH", messages: ONE }), -10],
      ["no sender", doc({ sender: "", messages: ONE }), -4],
      [
        "only bad numbers",
        doc({
          messages: [
            { pno: "12345", msg: "a" },
            { pno: "98765abcde", msg: "b" },
          ],
        }),
        -5,
      ],
      ["no pno", doc({ messages: [{ pno: "", msg: "a" }] }), -5],
      ["a message without text", doc({ messages: [...ONE, { pno: "9876543211", msg: "" }] }), -6],
      ["no messages (no number, no text: -5 first)", doc({ messages: [] }), -5],
      ["Hindi text", doc({ messages: [{ pno: "9876543210", msg: "नमस्ते" }] }), -40],
      ["unknown route", doc({ route: "X", messages: ONE }), -17],
      ["PROMOTIONAL on route T", doc({ sender: "PROMOTIONAL", messages: ONE }), -18],
      ["route I not enabled", doc({ route: "I", messages: [{ pno: "+447911123456", msg: "a" }] }), -20],
      ["route PS not enabled", doc({ route: "PS", messages: ONE }), -22],
      ["no credits", doc({ messages: ONE }, broke), -12],
    ];
    for (const [name, xml, code] of cases) expectCode(await xmlSend(t, xml), code, name);
    expect(await storedOf(t, account)).toEqual([]);

    // Bad numbers are left out of a document that has good ones.
    const id = expectBroadcastId(
      await xmlSend(
        t,
        doc({
          route: "P",
          sender: "PROMOTIONAL",
          messages: [
            { pno: "12345", msg: "x" },
            { pno: "9876543219", msg: "offer one" },
            { pno: "abc", msg: "y" },
          ],
        }),
      ),
      account,
    );
    expect((await storedOf(t, account)).map((m) => [m.broadcast_id, m.recipient, m.body, m.route])).toEqual([
      [id, "9876543219", "offer one", "promotional"],
    ]);
  });
});
