// A path that exists, asked with a method it does not take, answers 405 with Allow naming its
// methods (from the server's route table), in its family's dialect: plain text and
// X-Error-Message on the legacy, XML, voice and email paths, the JSON envelope on v2. An unknown
// path stays 404. A HEAD of a GET that sends (legacy, XML, voice, email, v2) runs nothing: no
// message, no debit (decision 0186 and its addendum).
import { beforeAll, expect, it } from "vitest";
import { walletBalances } from "../../src/domain/accounts/ledger.js";
import { base, emailAccount } from "../channels/email/helpers.js";
import { buildVoiceAccount, callParams } from "../channels/voice/helpers.js";
import { describeEachEngine } from "../helpers/engines.js";
import { buildAccount, type TestAccount, type TestGateway, useTestGateway } from "../helpers/gateway.js";
import { credentials, pushsms, sendParams } from "../helpers/legacy.js";

type Params = Record<string, string | number | undefined>;

function query(params: Params): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) search.append(name, String(value));
  return search.toString();
}

async function ask(t: TestGateway, method: string, target: string) {
  const response = await fetch(`${t.url}${target}`, { method });
  const text = await response.text();
  // biome-ignore lint/suspicious/noExplicitAny: the test reads JSON answers field by field
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** Every trace a send leaves: its message rows and the account's wallets. */
async function traces(t: TestGateway, account: TestAccount) {
  const messages = await t.db.store.db
    .selectFrom("messages")
    .select("id")
    .where("account_id", "=", account.id)
    .execute();
  return { messages: messages.length, wallets: await walletBalances(t.db.store.db, account.id) };
}

/** A path of each family of the spec, the methods it takes, and one it does not. */
const PATHS: { path: string; allow: string; dialect: "text" | "success" | "status" }[] = [
  { path: "/httpapi/send", allow: "GET, POST", dialect: "text" },
  { path: "/api/secure_api/httpapi/send", allow: "GET, POST", dialect: "text" },
  { path: "/httpapi/dlr", allow: "GET, HEAD, POST", dialect: "text" },
  { path: "/api/secure_api/httpapi/accountstatus", allow: "GET, HEAD, POST", dialect: "text" },
  { path: "/api/getcredits", allow: "GET, HEAD, POST", dialect: "text" },
  { path: "/xmlapi/send", allow: "GET, POST", dialect: "text" },
  { path: "/voicecall/v1/send", allow: "GET", dialect: "text" },
  { path: "/voicecall/v1/post/send", allow: "POST", dialect: "text" },
  { path: "/voicecall/v1/jpost/send", allow: "POST", dialect: "text" },
  { path: "/httpemailapi/v1/send", allow: "GET, POST", dialect: "text" },
  { path: "/httpemailapiv2/send", allow: "GET, POST", dialect: "text" },
  { path: "/httpemailapi/send", allow: "GET, POST", dialect: "text" },
  { path: "/api/v2/sms/send", allow: "GET, POST", dialect: "success" },
  { path: "/api/v2/balance", allow: "GET, HEAD", dialect: "success" },
  { path: "/api/v2/whatsapp/send", allow: "POST", dialect: "status" },
  { path: "/api/v2/templates", allow: "GET, HEAD, POST", dialect: "status" },
];

describeEachEngine("method answers: 405 with Allow on a path that exists", (engine) => {
  const gateway = useTestGateway(engine, { env: { LEGACY_THROTTLE_PER_SECOND: "0" } });
  let account: TestAccount;

  beforeAll(async () => {
    account = await buildAccount(gateway());
  });

  it("answers PUT, PATCH and DELETE on every family's paths 405, Allow naming the path's methods, in the family's dialect", async () => {
    const t = gateway();
    for (const { path, allow, dialect } of PATHS) {
      for (const method of ["PUT", "PATCH", "DELETE"]) {
        const answer = await ask(t, method, `${path}?${query(credentials(account))}`);
        const what = `${method} ${path}`;
        expect({ what, status: answer.status, allow: answer.headers.get("allow") }).toEqual({
          what,
          status: 405,
          allow,
        });
        const reason = `${method} is not taken on ${path}: it takes ${allow}.`;
        if (dialect === "text") {
          expect(answer.headers.get("content-type"), what).toBe("text/plain; charset=utf-8");
          expect(answer.text, what).toBe(reason);
          expect(answer.headers.get("x-error-message"), what).toBe(reason);
        } else {
          expect(answer.headers.get("content-type"), what).toMatch(/^application\/json/);
          const failed = dialect === "success" ? { success: false } : { status: "error" };
          expect(answer.json, what).toMatchObject({
            ...failed,
            message: reason,
            error: { code: "method_not_allowed" },
          });
        }
      }
    }
  });

  it("leaves an unknown path 404, whatever the method", async () => {
    const t = gateway();
    for (const method of ["GET", "PUT", "DELETE"]) {
      const legacy = await ask(t, method, "/httpapi/nothing-here");
      expect({ method, status: legacy.status, allow: legacy.headers.get("allow") }).toEqual({
        method,
        status: 404,
        allow: null,
      });
      expect(legacy.text).toBe(`No endpoint ${method} /httpapi/nothing-here.`);
      const v2 = await ask(t, method, "/api/v2/nothing-here");
      expect({ method, status: v2.status, code: v2.json?.error?.code }).toEqual({
        method,
        status: 404,
        code: "not_found",
      });
    }
  });

  it("takes a base URL ending in '/': //httpapi/send sends, //api/v2/balance answers, and the unknown and 405 keep their family's dialect", async () => {
    const t = gateway();
    const sms = await buildAccount(t);
    const sent = await ask(t, "GET", `//httpapi/send?${query(sendParams(sms))}`);
    expect(sent.status, sent.text).toBe(200);
    expect(sent.text).toMatch(/^\d+_\d{8}_\d+$/);
    expect((await traces(t, sms)).messages).toBe(1);
    const balance = await fetch(`${t.url}//api/v2/balance`, { headers: { authorization: `Bearer ${sms.apiKey}` } });
    expect(balance.status).toBe(200);
    const unknown = await ask(t, "GET", "//httpapi/nothing-here");
    expect({ status: unknown.status, type: unknown.headers.get("content-type") }).toEqual({
      status: 404,
      type: "text/plain; charset=utf-8",
    });
    const refused = await ask(t, "DELETE", "//api//v2/balance");
    expect({ status: refused.status, allow: refused.headers.get("allow") }).toEqual({
      status: 405,
      allow: "GET, HEAD",
    });
    expect(refused.json).toMatchObject({ success: false, error: { code: "method_not_allowed" } });
  });

  it("runs nothing on a HEAD of a GET that sends (legacy, XML, voice, email, v2): 405 with Allow, no message, no debit", async () => {
    const t = gateway();
    const sms = await buildAccount(t);
    await t.db.store.db.updateTable("accounts").set({ get_api_enabled: 1 }).where("id", "=", sms.id).execute();
    const voice = await buildVoiceAccount(t);
    const email = await emailAccount(t);
    const cases: [TestAccount, string, string][] = [
      [sms, `/httpapi/send?${query(sendParams(sms))}`, "GET, POST"],
      [sms, `/api/secure_api/httpapi/send?${query(sendParams(sms))}`, "GET, POST"],
      [
        sms,
        `/xmlapi/send?${query({ xmlstring: pushsms(credentials(sms), { messages: [{ pno: "9876543210", msg: "Hi" }] }) })}`,
        "GET, POST",
      ],
      [
        sms,
        `/api/v2/sms/send?${query({ api_key: sms.apiKey, sender_id: "SWBRD", recipient: "9876543210", message: "Hi" })}`,
        "GET, POST",
      ],
      [voice, `/voicecall/v1/send?${query(callParams(voice))}`, "GET"],
      ...["/httpemailapi/v1/send", "/httpemailapiv2/send", "/httpemailapi/send"].map(
        (path): [TestAccount, string, string] => [email, `${path}?${query(base(email))}`, "GET, POST"],
      ),
    ];
    const before = await Promise.all([sms, voice, email].map((a) => traces(t, a)));
    for (const [, target, allow] of cases) {
      const head = await ask(t, "HEAD", target);
      const path = target.split("?")[0];
      expect({ path, status: head.status, body: head.text, allow: head.headers.get("allow") }).toEqual({
        path,
        status: 405,
        body: "",
        allow,
      });
      expect(head.headers.get("x-error-message") ?? head.headers.get("content-type") ?? "", path).toMatch(
        /^HEAD runs nothing here|^application\/json/,
      );
    }
    expect(await Promise.all([sms, voice, email].map((a) => traces(t, a)))).toEqual(before);
    // The v2 GET itself sends: the HEAD above was refused for its method, not its parameters.
    const get = await ask(t, "GET", cases[3]![1]);
    expect({ status: get.status, success: get.json?.success }).toEqual({ status: 200, success: true });
  });

  it("answers a HEAD of a call that only reads as its GET", async () => {
    const t = gateway();
    const target = `/api/v2/balance?${query({ api_key: account.apiKey })}`;
    const get = await ask(t, "GET", target);
    const head = await ask(t, "HEAD", target);
    expect({ status: head.status, body: head.text }).toEqual({ status: get.status, body: "" });
    expect(get.status).toBe(200);
  });
});
