// Every legacy call refuses an account that is not active with -16, as the send always has: a
// blocked or inactive account, one whose parent (reseller) is blocked (decision 0148), and a
// password login locked after failed logins. Each call on both prefixes, GET and POST (form), with
// a password and with a key; nothing is read, created or charged. Only accountstatus answers: its
// answer is that status. Reactivated, the same requests answer again.
import { beforeAll, expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import {
  credentials,
  expectBroadcastId,
  legacy,
  operatorCall,
  type Params,
  pushsms,
  sendParams,
  type TextResponse,
  xmlSend,
} from "../../helpers/legacy.js";
import { subAccount } from "../../helpers/resellers.js";

const PREFIXES = ["/httpapi", "/api/secure_api/httpapi"] as const;
const METHODS = ["GET", "POST"] as const;

interface LegacyCall {
  name: string;
  path: string;
  /** The call's own parameters besides the credentials: an active account's call succeeds with them. */
  params: (account: TestAccount, broadcastId: string) => Params;
  /** What the active account's answer is (the test of the refusal's absence). */
  answers: (response: TextResponse, account: TestAccount) => void;
}

const NUMBER = "9876543210";

function plainText(response: TextResponse, what: string): string {
  expect(response.status, what).toBe(200);
  expect(response.headers.get("content-type"), what).toBe("text/plain; charset=utf-8");
  return response.text;
}

function jsonArray(response: TextResponse, what: string): unknown[] {
  expect(response.status, `${what}: ${response.text}`).toBe(200);
  expect(response.headers.get("content-type"), what).toBe("application/json; charset=utf-8");
  const list = JSON.parse(response.text);
  expect(Array.isArray(list), what).toBe(true);
  return list;
}

/** Every legacy call but accountstatus (and the XML send, below), under each prefix. */
const CALLS: LegacyCall[] = [
  {
    name: "getcredits",
    path: "/api/getcredits",
    params: () => ({}),
    answers: (response) => expect(plainText(response, "getcredits")).toMatch(/^\d+(\.\d+)?$/),
  },
  ...PREFIXES.flatMap((prefix): LegacyCall[] => [
    {
      name: `${prefix}/send`,
      path: `${prefix}/send`,
      params: () => ({ sender_id: "SWBRD", route: "T", phonenumber: NUMBER, message: "Hello from Switchboard" }),
      answers: (response, account) => expectBroadcastId(response, account),
    },
    {
      name: `${prefix}/dlr`,
      path: `${prefix}/dlr`,
      params: (_account, broadcastId) => ({ broadcastid: broadcastId, phonenumber: NUMBER }),
      answers: (response) => expect(plainText(response, "dlr")).toMatch(/^(submitted|delivered|failed)$/),
    },
    {
      name: `${prefix}/templates`,
      path: `${prefix}/templates`,
      params: () => ({}),
      answers: (response) => jsonArray(response, "templates"),
    },
    {
      name: `${prefix}/addtemplate`,
      path: `${prefix}/addtemplate`,
      params: () => ({
        sender_id: "SWBRD",
        template_name: "order",
        template_message: "Your order {#var#} has shipped.",
        dlt_template_id: "1107160000000000077",
      }),
      answers: (response, account) =>
        expect(plainText(response, "addtemplate")).toMatch(new RegExp(`^${account.id}_\\d+$`)),
    },
    {
      name: `${prefix}/mis`,
      path: `${prefix}/mis`,
      params: () => ({ limit: "5" }),
      answers: (response) => expect(jsonArray(response, "mis").length).toBeGreaterThan(0),
    },
  ]),
];

describeEachEngine("legacy calls refuse an account that is not active with -16", (engine) => {
  const gateway = useTestGateway(engine, {
    env: { LEGACY_THROTTLE_PER_SECOND: "0", LOGIN_LOCK_THRESHOLD: "3" },
    roles: ["api"],
  });
  let operator: TestAccount;

  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
  });

  /** What a refused call must not have changed: messages, templates and the SMS wallet. */
  async function footprint(t: TestGateway, account: TestAccount) {
    const db = t.db.store.db;
    const count = async (table: "messages" | "templates") =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .where("account_id", "=", account.id)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const wallet = await db
      .selectFrom("wallets")
      .select("balance")
      .where("account_id", "=", account.id)
      .where("wallet", "=", "sms")
      .executeTakeFirstOrThrow();
    return { messages: await count("messages"), templates: await count("templates"), sms: Number(wallet.balance) };
  }

  /** Each call, each method, each credential given: the answer of each. */
  async function everyCall(
    t: TestGateway,
    account: TestAccount,
    broadcastId: string,
    auths: Params[],
    check: (response: TextResponse, what: string, call: LegacyCall) => void,
  ) {
    for (const call of CALLS) {
      for (const method of METHODS) {
        for (const auth of auths) {
          const what = `${method} ${call.name} (${Object.keys(auth).join("+")})`;
          check(await legacy(t, call.path, { ...auth, ...call.params(account, broadcastId) }, method), what, call);
        }
      }
    }
    for (const auth of auths) {
      const document = pushsms(
        { username: auth.username ?? "", password: auth.password ?? "" },
        { route: "T", messages: [{ pno: NUMBER, msg: "Hello from Switchboard" }] },
      );
      // The XML API reads the credentials beside the document when it carries none.
      const answer = auth.api_key
        ? await legacy(t, "/xmlapi/send", { xmlstring: document, api_key: auth.api_key }, "POST")
        : await xmlSend(t, document);
      check(answer, `POST /xmlapi/send (${Object.keys(auth).join("+")})`, {
        name: "xmlapi/send",
        path: "/xmlapi/send",
        params: () => ({}),
        answers: (response, who) => expectBroadcastId(response, who),
      });
    }
  }

  /** Every call answers -16 in plain text, X-Error-Message saying why; nothing changes. */
  async function expectRefused(
    t: TestGateway,
    account: TestAccount,
    broadcastId: string,
    auths: Params[],
    reason: RegExp,
  ) {
    const before = await footprint(t, account);
    await everyCall(t, account, broadcastId, auths, (response, what) => {
      expect(plainText(response, what), what).toBe("-16");
      expect(response.headers.get("x-error-message"), what).toMatch(reason);
    });
    expect(await footprint(t, account)).toEqual(before);
  }

  /** Every call answers as it does for an active account. */
  async function expectAnswered(t: TestGateway, account: TestAccount, broadcastId: string, auths: Params[]) {
    await everyCall(t, account, broadcastId, auths, (response, what, call) => {
      expect(response.text, what).not.toBe("-16");
      call.answers(response, account);
    });
  }

  /** An active account with a broadcast to ask dlr about and a row for mis. */
  async function withBroadcast(t: TestGateway, account: TestAccount): Promise<string> {
    return expectBroadcastId(await legacy(t, "/httpapi/send", sendParams(account)), account);
  }

  const accountStatus = async (t: TestGateway, auth: Params) => {
    const answers = new Set<string>();
    for (const prefix of PREFIXES) {
      for (const method of METHODS) answers.add((await legacy(t, `${prefix}/accountstatus`, auth, method)).text);
    }
    return [...answers];
  };

  for (const status of ["blocked", "inactive"] as const) {
    it(`a ${status} account: -16 on every call but accountstatus (which answers ${status}), with a password or a key`, async () => {
      const t = gateway();
      const account = await buildAccount(t, { credits: { sms: 1000 } });
      const broadcastId = await withBroadcast(t, account);
      const auths = [credentials(account), { api_key: account.apiKey }];
      await operatorCall(t, operator, "PATCH", `/accounts/${account.username}`, { status });

      await expectRefused(t, account, broadcastId, auths, new RegExp(`^The account is ${status}`));
      for (const auth of auths) expect(await accountStatus(t, auth)).toEqual([status]);
      // Wrong credentials are still -7, not a word about the account.
      expect((await legacy(t, "/api/getcredits", { ...credentials(account), password: "wrong" })).text).toBe("-7");

      await operatorCall(t, operator, "PATCH", `/accounts/${account.username}`, { status: "active" });
      await expectAnswered(t, account, broadcastId, auths);
      expect(await accountStatus(t, auths[0] as Params)).toEqual(["active"]);
    });
  }

  it("a sub-account whose parent is blocked: -16 on every call, saying a parent account is; accountstatus blocked", async () => {
    const t = gateway();
    const parent = await buildAccount(t, { credits: { sms: 1000 } });
    const child = await subAccount(t, parent, {}, { sms: 100 });
    const broadcastId = await withBroadcast(t, child);
    const auths = [credentials(child), { api_key: child.apiKey }];
    await operatorCall(t, operator, "PATCH", `/accounts/${parent.username}`, { status: "blocked" });

    await expectRefused(t, child, broadcastId, auths, /^A parent account of this account is blocked/);
    expect(await accountStatus(t, auths[0] as Params)).toEqual(["blocked"]);

    await operatorCall(t, operator, "PATCH", `/accounts/${parent.username}`, { status: "active" });
    await expectAnswered(t, child, broadcastId, auths);
  });

  it("a password login locked after LOGIN_LOCK_THRESHOLD failed logins: -16 on every call with the password, accountstatus too; its key answers", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 1000 } });
    const broadcastId = await withBroadcast(t, account);
    const wrong = { ...credentials(account), password: "a-wrong-guess" };
    for (let i = 0; i < 3; i++) expect((await legacy(t, "/api/getcredits", wrong)).text).toBe("-7");

    await expectRefused(t, account, broadcastId, [credentials(account)], /locked/);
    // A locked login is not a status: accountstatus cannot log in either.
    expect(await accountStatus(t, credentials(account))).toEqual(["-16"]);
    // API keys are never locked by failed logins.
    await expectAnswered(t, account, broadcastId, [{ api_key: account.apiKey }]);

    await operatorCall(t, operator, "PATCH", `/accounts/${account.username}`, { unlock: true });
    await expectAnswered(t, account, broadcastId, [credentials(account)]);
  });
});
