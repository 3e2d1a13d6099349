// The gateway behind a real nginx that ends TLS (test/helpers/nginx.ts, the set-up of
// docs/deployment.md), TRUST_PROXY naming the proxy: the client's own address is what login
// locks, sessions and the request log see, so one guessing client locks only itself; https
// reaches the gateway as X-Forwarded-Proto and makes the console's cookie Secure. The same
// headers sent straight to the gateway from an address it does not trust change nothing.
// Clients pick their source address among 127/8, so several clients stand behind one proxy.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { generate } from "selfsigned";
import { Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/base/runtime/config.js";
import { until } from "../domain/webhooks/receiver.js";
import { describeEachEngine } from "../helpers/engines.js";
import { buildAccount, call, startTestGateway, type TestAccount, type TestGateway } from "../helpers/gateway.js";
import { captureLogs, type LogCapture } from "../helpers/log-capture.js";
import { nginxMissing, startThrowawayNginx, type ThrowawayNginx } from "../helpers/nginx.js";

const THRESHOLD = 3;
/** The proxy connects to the gateway from 127.0.0.1; clients come from other loopback addresses. */
const PROXY = "127.0.0.1";

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read JSON bodies field by field and assert them
  body: any;
}

let dir: string;
let cert: string;

beforeAll(async () => {
  if (nginxMissing) return;
  const pems = await generate([{ name: "commonName", value: "sms.switchboard.test" }], {
    keySize: 2048,
    extensions: [{ name: "subjectAltName", altNames: [{ type: 7, ip: "127.0.0.1" }] }],
  });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-proxy-tls-"));
  fs.writeFileSync(path.join(dir, "cert.pem"), pems.cert);
  fs.writeFileSync(path.join(dir, "key.pem"), pems.private);
  cert = pems.cert;
});

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** One request from the source address `from` (https through nginx, or plain http to the gateway). */
async function send(
  url: string,
  from: string,
  method: string,
  init: { headers?: Record<string, string>; json?: unknown } = {},
): Promise<Answer> {
  const agent = new Agent({ localAddress: from, connect: { ca: cert } });
  try {
    const headers = { ...(init.headers ?? {}) };
    if (init.json !== undefined) headers["content-type"] = "application/json";
    const answer = await request(url, {
      method: method as "GET",
      headers,
      dispatcher: agent,
      ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
    });
    const text = await answer.body.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: answer.statusCode, headers: answer.headers, text, body };
  } finally {
    await agent.close();
  }
}

function suite(engine: "sqlite" | "postgres") {
  let t: TestGateway;
  let nginx: ThrowawayNginx;
  let logs: LogCapture;
  let operator: TestAccount;

  beforeAll(async () => {
    logs = captureLogs();
    t = await startTestGateway(engine, {
      logger: logs.logger,
      env: { TRUST_PROXY: PROXY, LOGIN_LOCK_THRESHOLD: String(THRESHOLD) },
    });
    nginx = await startThrowawayNginx(t.url, { cert: path.join(dir, "cert.pem"), key: path.join(dir, "key.pem") });
    operator = await buildAccount(t, { role: "operator", sender: null });
  });

  afterAll(async () => {
    await nginx?.stop();
    await t?.gateway.stop();
    await t?.db.drop();
  });

  const viaProxy = (from: string, method: string, pathname: string, init?: Parameters<typeof send>[3]) =>
    send(`${nginx.url}${pathname}`, from, method, init);
  const direct = (from: string, method: string, pathname: string, init?: Parameters<typeof send>[3]) =>
    send(`${t.url}${pathname}`, from, method, init);
  const getcredits = (username: string, password: string) =>
    `/api/getcredits?${new URLSearchParams({ username, password })}`;

  async function addressesLocked(username: string): Promise<string[]> {
    const locks = await call(t, "GET", "/admin/api/login-locks", {
      headers: { authorization: `Bearer ${operator.apiKey}` },
    });
    return locks.body.data
      .filter((lock: { username: string }) => lock.username === username)
      .map((lock: { address: string }) => lock.address);
  }

  async function sessionAddresses(account: TestAccount): Promise<string[]> {
    const rows = await t.db.store.db
      .selectFrom("console_sessions")
      .select("address")
      .where("account_id", "=", account.id)
      .execute();
    return rows.map((row) => row.address);
  }

  /** The request log's address of the sign-ins of `account`, once written (after the answer). */
  async function loggedAddresses(count: number): Promise<string[]> {
    const signIns = () => logs.lines.filter((line) => line.http?.route === "/console/session");
    await until(() => signIns().length >= count, 5_000);
    return signIns().map((line) => line.http.ip);
  }

  it("signs in over https through the proxy: a Secure cookie, and the client's address on the session and in the log", async () => {
    const account = await buildAccount(t, { credits: { sms: 12 } });
    const signedIn = await viaProxy("127.0.0.2", "POST", "/console/session", {
      json: { username: account.username, password: account.password },
    });
    expect(signedIn.status, signedIn.text).toBe(201);
    const setCookie = String(signedIn.headers["set-cookie"]);
    expect(setCookie).toMatch(/^sb_session=[\w-]{43}; Max-Age=\d+; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
    expect(await sessionAddresses(account)).toEqual(["127.0.0.2"]);
    expect(await loggedAddresses(1)).toEqual(["127.0.0.2"]);

    const balance = await viaProxy("127.0.0.2", "GET", "/api/v2/balance", {
      headers: { cookie: setCookie.split(";")[0] ?? "" },
    });
    expect(balance.status).toBe(200);
    expect(balance.body.data.balance).toBe(12);
  });

  it("locks out the guessing client's address only: other clients behind the proxy still log in", async () => {
    const account = await buildAccount(t, { credits: { sms: 7 } });
    for (let i = 0; i < THRESHOLD; i++) {
      expect((await viaProxy("127.0.0.2", "GET", getcredits(account.username, "wrong-password"))).text).toBe("-7");
    }
    expect((await viaProxy("127.0.0.2", "GET", getcredits(account.username, account.password))).text).toBe("-16");
    // A forged X-Forwarded-For reaches the gateway behind the real address nginx adds: ignored.
    const forged = await viaProxy("127.0.0.2", "GET", getcredits(account.username, account.password), {
      headers: { "x-forwarded-for": "127.0.0.3" },
    });
    expect(forged.text).toBe("-16");
    expect((await viaProxy("127.0.0.3", "GET", getcredits(account.username, account.password))).text).toBe("7");
    expect(await addressesLocked(account.username)).toEqual(["127.0.0.2"]);
  });

  it("ignores X-Forwarded-For and X-Forwarded-Proto from an address that is not a trusted proxy", async () => {
    const account = await buildAccount(t, { credits: { sms: 5 } });
    const spoofed = { "x-forwarded-for": "127.0.0.5", "x-forwarded-proto": "https" };
    const signedIn = await direct("127.0.0.4", "POST", "/console/session", {
      headers: spoofed,
      json: { username: account.username, password: account.password },
    });
    expect(signedIn.status, signedIn.text).toBe(201);
    expect(String(signedIn.headers["set-cookie"])).not.toContain("Secure");
    expect(await sessionAddresses(account)).toEqual(["127.0.0.4"]);
    expect((await loggedAddresses(2))[1]).toBe("127.0.0.4");

    for (let i = 0; i < THRESHOLD; i++) {
      const wrong = await direct("127.0.0.4", "GET", getcredits(account.username, "wrong-password"), {
        headers: spoofed,
      });
      expect(wrong.text).toBe("-7");
    }
    expect(await addressesLocked(account.username)).toEqual(["127.0.0.4"]);
  });
}

if (nginxMissing) {
  console.warn(`nginx unavailable (${nginxMissing}): the reverse-proxy suites skipped.`);
  for (const engine of ["sqlite", "postgres"] as const) {
    describe.skip(`the gateway behind nginx [${engine}] (skipped: ${nginxMissing})`, () => suite(engine));
  }
} else {
  describeEachEngine("the gateway behind nginx", suite);
}

describe("TRUST_PROXY", () => {
  const env = { DATABASE_URL: "sqlite::memory:" };

  it("takes addresses, CIDR ranges and proxy-addr's names; unset trusts no proxy", () => {
    expect(loadConfig(env).trustProxy).toBeUndefined();
    expect(loadConfig({ ...env, TRUST_PROXY: " 127.0.0.1, 10.0.0.0/8 ,::1,fd00::/8,loopback" }).trustProxy).toEqual([
      "127.0.0.1",
      "10.0.0.0/8",
      "::1",
      "fd00::/8",
      "loopback",
    ]);
  });

  it("refuses what is not an address or range, and a range that trusts everyone", () => {
    for (const value of ["nginx.local", "10.0.0.0/33", "0.0.0.0/0", "::/0", "127.0.0.1;10.0.0.1", "*"]) {
      expect(() => loadConfig({ ...env, TRUST_PROXY: value }), value).toThrow(ConfigError);
      expect(() => loadConfig({ ...env, TRUST_PROXY: value }), value).toThrow(
        /TRUST_PROXY .*CIDR ranges of the proxies/,
      );
    }
  });
});
