// Decision 0186, through the real server: a HEAD on the legacy family answers as its GET would
// where the call only reads, and 405 (nothing run) where it sends or writes; a parameter whose
// percent-escapes are not UTF-8 (ISO-8859-1 `caf%E9`) is refused -8 (-9 for xmlstring), nothing
// sent or charged; a send missing both its number and its text answers -5, the spec's table order.
import { beforeAll, expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { credentials, legacy, type Params, pushsms, sendParams } from "../../helpers/legacy.js";

const PREFIXES = ["/httpapi", "/api/secure_api/httpapi"] as const;

function query(params: Params): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) search.append(name, value);
  return search.toString();
}

async function stored(t: TestGateway, account: TestAccount) {
  return t.db.store.db
    .selectFrom("messages")
    .select(["recipient", "body"])
    .where("account_id", "=", account.id)
    .orderBy("id")
    .execute();
}

async function credits(t: TestGateway, account: TestAccount): Promise<string> {
  return (await legacy(t, "/api/getcredits", credentials(account))).text;
}

async function raw(t: TestGateway, method: string, pathAndQuery: string, body?: string) {
  const response = await fetch(`${t.url}${pathAndQuery}`, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/x-www-form-urlencoded" }, body }),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describeEachEngine("legacy conformance: HEAD, percent-encoding, -5 before -6", (engine) => {
  const gateway = useTestGateway(engine, { env: { LEGACY_THROTTLE_PER_SECOND: "0" } });
  let account: TestAccount;

  beforeAll(async () => {
    account = await buildAccount(gateway());
  });

  it("a HEAD on a call that only reads answers as its GET, headers and status, without a body", async () => {
    const t = gateway();
    const auth = query(credentials(account));
    const paths = [
      "/api/getcredits",
      ...PREFIXES.flatMap((prefix) => [
        `${prefix}/accountstatus`,
        `${prefix}/templates`,
        `${prefix}/mis`,
        `${prefix}/dlr?phonenumber=9876543210&broadcastid=1_20260101_000001&`,
      ]),
    ];
    for (const path of paths) {
      const target = `${path}${path.includes("?") ? "" : "?"}${auth}`;
      const get = await raw(t, "GET", target);
      const head = await raw(t, "HEAD", target);
      expect({ path, status: head.status, body: head.text }).toEqual({ path, status: get.status, body: "" });
      expect(head.headers.get("content-type"), path).toBe(get.headers.get("content-type"));
      expect(head.headers.get("content-length"), path).toBe(String(Buffer.byteLength(get.text)));
    }
    // A refusal too: the code's header, as the GET's (its body is the code).
    const wrong = `/api/getcredits?${query({ ...credentials(account), password: "not-it" })}`;
    const head = await raw(t, "HEAD", wrong);
    expect({ status: head.status, body: head.text }).toEqual({ status: 200, body: "" });
    expect(head.headers.get("x-error-message")).toBe((await raw(t, "GET", wrong)).headers.get("x-error-message"));
  });

  it("a HEAD on a call that sends or writes runs nothing: 405 with Allow, nothing sent, charged or added", async () => {
    const t = gateway();
    const sender = await buildAccount(t);
    const before = await credits(t, sender);
    const targets = [
      ...PREFIXES.map((prefix) => `${prefix}/send?${query(sendParams(sender))}`),
      ...PREFIXES.map(
        (prefix) =>
          `${prefix}/addtemplate?${query({
            ...credentials(sender),
            sender_id: "SWBRD",
            template_name: "head",
            template_message: "Your code is {#var#}",
            dlt_template_id: "1107160000000000009",
          })}`,
      ),
      `/xmlapi/send?${query({ xmlstring: pushsms(credentials(sender), { messages: [{ pno: "9876543210", msg: "Hi" }] }) })}`,
    ];
    for (const target of targets) {
      const head = await raw(t, "HEAD", target);
      expect({ target, status: head.status, body: head.text }).toEqual({ target, status: 405, body: "" });
      expect(head.headers.get("allow"), target).toBe("GET, POST");
      expect(head.headers.get("x-error-message"), target).toMatch(/^HEAD runs nothing here/);
    }
    expect(await stored(t, sender)).toEqual([]);
    expect(await credits(t, sender)).toBe(before);
    const templates = await t.db.store.db
      .selectFrom("templates")
      .select("id")
      .where("account_id", "=", sender.id)
      .execute();
    expect(templates).toEqual([]);
    // The GET itself still sends.
    expect((await raw(t, "GET", targets[0]!)).text).toMatch(/^\d+_\d{8}_\d+$/);
  });

  it("refuses a text whose percent-escapes are not UTF-8 (caf%E9): -8, nothing sent or charged", async () => {
    const t = gateway();
    const sender = await buildAccount(t);
    const before = await credits(t, sender);
    const base = query(sendParams(sender, { message: undefined }));
    const cases: [string, string, string | undefined, string][] = [
      ["GET message", `/httpapi/send?${base}&message=caf%E9`, undefined, "-8"],
      ["GET text", `/api/secure_api/httpapi/send?${base}&text=caf%E9`, undefined, "-8"],
      ["GET Windows-1252 quote", `/httpapi/send?${base}&message=%93Hi%94`, undefined, "-8"],
      ["GET a cut UTF-8 sequence", `/httpapi/send?${base}&message=caf%C3`, undefined, "-8"],
      ["POST message", "/httpapi/send", `${base}&message=caf%E9`, "-8"],
      ["POST text, query credentials", `/httpapi/send?${query(credentials(sender))}`, `${base}&text=caf%E9`, "-8"],
    ];
    for (const [what, target, body, code] of cases) {
      const answer = await raw(t, body === undefined ? "GET" : "POST", target, body);
      expect({ what, status: answer.status, text: answer.text }).toEqual({ what, status: 200, text: code });
      expect(answer.headers.get("x-error-message"), what).toMatch(/is not UTF-8 once percent-decoded/);
    }
    // The XML document in its form field: malformed, -9.
    const xml = encodeURIComponent(pushsms(credentials(sender), { messages: [{ pno: "9876543210", msg: "cafe" }] }));
    const latin = await raw(t, "POST", "/xmlapi/send", `xmlstring=${xml.replace("cafe", "caf%E9")}`);
    expect({ status: latin.status, text: latin.text }).toEqual({ status: 200, text: "-9" });
    expect(await stored(t, sender)).toEqual([]);
    expect(await credits(t, sender)).toBe(before);

    // UTF-8 escapes send the text; an escape that is none stays literal, as URL parsers read it.
    const utf8 = await raw(t, "GET", `/httpapi/send?${base}&message=caf%C3%A9`);
    expect(utf8.text).toMatch(/^\d+_\d{8}_\d+$/);
    const literal = await raw(t, "POST", "/httpapi/send", `${base}&message=100%ZZ`);
    expect(literal.text).toMatch(/^\d+_\d{8}_\d+$/);
    expect((await stored(t, sender)).map((row) => row.body)).toEqual(["café", "100%ZZ"]);
  });

  it("a send missing both its number and its text answers -5, as the spec's table orders -4, -5, -6", async () => {
    const t = gateway();
    const cases: [string, Params, string][] = [
      ["no number, no message", { phonenumber: undefined, message: undefined }, "-5"],
      ["blank number, blank message", { phonenumber: " ", message: " " }, "-5"],
      ["no number, no message, no route", { phonenumber: undefined, message: undefined, route: undefined }, "-5"],
      ["no sender, no number, no message", { sender_id: undefined, phonenumber: undefined, message: undefined }, "-4"],
      ["no credentials, no number", { username: undefined, password: undefined, phonenumber: undefined }, "-1"],
      ["a number, no message", { message: undefined }, "-6"],
      ["a bad number, no message", { phonenumber: "12345", message: undefined }, "-6"],
    ];
    for (const prefix of PREFIXES) {
      for (const method of ["GET", "POST"] as const) {
        for (const [what, changes, code] of cases) {
          const answer = await legacy(t, `${prefix}/send`, sendParams(account, changes), method);
          expect({ what, prefix, method, text: answer.text }).toEqual({ what, prefix, method, text: code });
        }
      }
    }
    expect(await stored(t, account)).toEqual([]);
  });
});
