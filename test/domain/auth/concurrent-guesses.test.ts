// Guesses sent all at once must not pass the login lock (issue 36): the lock was checked before
// the argon2 check but set only when the threshold's failure was recorded, so 59 wrong console
// sign-ins sent together all answered 401 and the right password signed in 20 ms later. Now each
// check is reserved before it runs: whatever the concurrency, at most LOGIN_LOCK_THRESHOLD
// guesses from one address and THRESHOLD × LOGIN_LOCK_ADDRESSES for one account are checked, on
// every password path. Requests come from 127.0.x.y (all of 127/8 is loopback) to be different
// source addresses to the server.
import { expect, it } from "vitest";
import { isGatewayError } from "../../../src/base/core/errors.js";
import { createMetrics } from "../../../src/base/runtime/metrics.js";
import { accountCredentials } from "../../../src/domain/accounts/index.js";
import { Authenticator, passwordMatches } from "../../../src/domain/auth/index.js";
import { connectEsme, type EsmeClient, smppAccount, smppPort } from "../../channels/smpp-server/client.js";
import { realCostPassword } from "../../helpers/cheap-hashes.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { RawConnection, type RawResponse } from "../../helpers/raw-http.js";

const THRESHOLD = 10;
const ADDRESSES = 3;
const GUESSES = 300;

describeEachEngine("password guesses sent at once", (engine) => {
  const gateway = useTestGateway(engine, {
    env: {
      LOGIN_LOCK_THRESHOLD: String(THRESHOLD),
      LOGIN_LOCK_ADDRESSES: String(ADDRESSES),
      SMPP_SERVER_PORT: "auto",
      // The binds below connect from one address at once, before any of them is bound.
      SMPP_SERVER_UNBOUND_PER_ADDRESS: "100",
    },
  });

  /** One request on its own connection from `from`. */
  const send = async (
    t: TestGateway,
    from: string,
    method: string,
    path: string,
    body?: { type: string; text: string },
  ): Promise<RawResponse> => {
    const connection = await RawConnection.open(t.url, from);
    try {
      return await connection.request(method, path, {
        ...(body ? { headers: { "content-type": body.type }, body: body.text } : {}),
        timeoutMs: 60_000,
      });
    } finally {
      connection.close();
    }
  };

  const getcredits = (t: TestGateway, from: string, username: string, password: string) =>
    send(t, from, "GET", `/api/getcredits?${new URLSearchParams({ username, password })}`).then((a) => a.body);

  const consoleSignIn = (t: TestGateway, from: string, username: string, password: string) =>
    send(t, from, "POST", "/console/session", {
      type: "application/json",
      text: JSON.stringify({ username, password }),
    }).then((a) => a.status);

  const xmlSend = (t: TestGateway, from: string, username: string, password: string) => {
    const doc =
      `<pushsms><username>${username}</username><password>${password}</password><senderid>SWBRD</senderid>` +
      '<messages><message pno="9876543210" msg="hello"/></messages></pushsms>';
    return send(t, from, "POST", "/xmlapi/send", {
      type: "application/x-www-form-urlencoded",
      text: new URLSearchParams({ xmlstring: doc }).toString(),
    }).then((a) => a.body.trim());
  };

  const emailSend = (t: TestGateway, from: string, username: string, password: string) =>
    send(t, from, "POST", "/httpemailapi/v1/send", {
      type: "application/x-www-form-urlencoded",
      text: new URLSearchParams({
        username,
        password,
        from: "news@example.com",
        to: "someone@example.com",
        subject: "hi",
        content: "hello",
      }).toString(),
    }).then((a) => a.body);

  /** The password checks this gateway counted, by outcome. */
  const checks = async (t: TestGateway) => {
    const metric = await t.gateway.ctx.metrics.passwordChecks.get();
    const of = (outcome: string) => metric.values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
    return { verified: of("verified"), wrong: of("wrong"), refused: of("refused") };
  };

  /** Sends GUESSES distinct wrong passwords at once; answers what each got. */
  const guessAtOnce = <T>(guess: (i: number) => Promise<T>) =>
    Promise.all(Array.from({ length: GUESSES }, (_, i) => guess(i)));

  const count = <T>(answers: T[], value: T) => answers.filter((a) => a === value).length;

  it("checks at most LOGIN_LOCK_THRESHOLD of a legacy flood from one address; the rest answer -16", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 7 }, password: realCostPassword() });
    const before = await checks(t);
    const answers = await guessAtOnce((i) => getcredits(t, "127.0.9.1", account.username, `guess-${i}`));
    expect(count(answers, "-7") + count(answers, "-16")).toBe(GUESSES);
    expect(count(answers, "-7")).toBeLessThanOrEqual(THRESHOLD);
    expect(count(answers, "-7")).toBeGreaterThan(0);
    const after = await checks(t);
    expect(after.wrong - before.wrong).toBe(count(answers, "-7"));
    // The address is locked, even with the right password; another address still logs in.
    expect(await getcredits(t, "127.0.9.1", account.username, account.password)).toBe("-16");
    expect(await getcredits(t, "127.0.9.2", account.username, account.password)).toBe("7");
  });

  it("checks at most THRESHOLD × ADDRESSES for one account of guesses from many addresses at once", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 7 }, password: realCostPassword() });
    const answers = await guessAtOnce((i) =>
      getcredits(t, `127.0.${10 + Math.floor(i / 200)}.${(i % 200) + 1}`, account.username, `guess-${i}`),
    );
    expect(count(answers, "-7") + count(answers, "-16")).toBe(GUESSES);
    expect(count(answers, "-7")).toBeLessThanOrEqual(THRESHOLD * ADDRESSES);
    // The whole account is locked: a fresh address with the right password is refused.
    expect(await getcredits(t, "127.0.20.1", account.username, account.password)).toBe("-16");
  });

  it("holds on the XML and email families", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 7, email: 7 }, password: realCostPassword() });
    const xml = await guessAtOnce((i) => xmlSend(t, "127.0.21.1", account.username, `guess-${i}`));
    expect(xml.filter((a) => a.includes("-7")).length).toBeLessThanOrEqual(THRESHOLD);
    expect(xml.filter((a) => a.includes("-7") || a.includes("-16")).length).toBe(GUESSES);
    expect(await xmlSend(t, "127.0.21.1", account.username, account.password)).toContain("-16");

    // The email family answers -7 to a lock too (as the spec has it): the checks tell.
    const before = await checks(t);
    const email = await guessAtOnce((i) => emailSend(t, "127.0.21.2", account.username, `guess-${i}`));
    expect(count(email, "-7")).toBe(GUESSES);
    const after = await checks(t);
    expect(after.wrong - before.wrong).toBeLessThanOrEqual(THRESHOLD);
    expect(after.wrong - before.wrong + after.refused - before.refused).toBe(GUESSES);
    expect(await emailSend(t, "127.0.21.2", account.username, account.password)).toBe("-7");
    expect((await checks(t)).refused).toBe(after.refused + 1);
  });

  it("holds on the console's sign-in, for accounts and operators alike", async () => {
    const t = gateway();
    for (const [n, role] of [
      [1, "customer"],
      [2, "operator"],
    ] as const) {
      const account = await buildAccount(t, { role, sender: null, password: realCostPassword() });
      const from = `127.0.22.${n}`;
      const answers = await guessAtOnce((i) => consoleSignIn(t, from, account.username, `guess-${i}`));
      expect(count(answers, 401) + count(answers, 403)).toBe(GUESSES);
      expect(count(answers, 401)).toBeLessThanOrEqual(THRESHOLD);
      expect(await consoleSignIn(t, from, account.username, account.password)).toBe(403);
      expect(await consoleSignIn(t, "127.0.22.9", account.username, account.password)).toBe(201);
    }
  });

  it("holds on SMPP binds: wrong and locked both answer ESME_RINVPASWD, and few are checked", async () => {
    const t = gateway();
    const account = await smppAccount(t);
    const before = await checks(t);
    const binds = 60;
    const clients: EsmeClient[] = await Promise.all(Array.from({ length: binds }, () => connectEsme(smppPort(t))));
    const answers = await Promise.all(
      clients.map((client, i) => client.bind("transceiver", account.username, `wrong-${i}`)),
    );
    for (const answer of answers) expect(answer.command_status).toBe(0x0e);
    const after = await checks(t);
    expect(after.wrong - before.wrong).toBeLessThanOrEqual(THRESHOLD);
    expect(after.wrong - before.wrong + after.refused - before.refused).toBe(binds);
    const late = await connectEsme(smppPort(t));
    expect((await late.bind("transceiver", account.username, account.smppPassword)).command_status).toBe(0x0e);
  });

  it("shares the budget between processes on one database, and one check between identical attempts", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 7 }, password: realCostPassword() });
    let checked = 0;
    const settings = {
      passwordCacheSeconds: 300,
      loginLockThreshold: THRESHOLD,
      loginLockMinutes: 15,
      loginLockAddresses: ADDRESSES,
    };
    // Two authenticators stand for two processes: each has its own memory, the store is shared.
    const processes = [0, 1].map(
      () =>
        new Authenticator(t.db.store, accountCredentials, t.clock, settings, {
          verify: async (hash, password) => {
            checked++;
            return passwordMatches(hash, password);
          },
          checksCounter: createMetrics({ defaultMetrics: false }).passwordChecks,
        }),
    );
    try {
      // A client's first requests, all at once with the right password: one check.
      const [first] = processes;
      await Promise.all(
        Array.from({ length: 50 }, () => first!.byPassword(account.username, account.password, "127.0.23.1")),
      );
      expect(checked).toBe(1);

      checked = 0;
      const outcomes = await Promise.all(
        Array.from({ length: GUESSES }, (_, i) =>
          processes[i % 2]!.byPassword(account.username, `guess-${i}`, "127.0.23.2").then(
            () => "signed in",
            (error: unknown) => (isGatewayError(error) ? error.code : String(error)),
          ),
        ),
      );
      expect(count(outcomes, "unauthorized") + count(outcomes, "account_locked")).toBe(GUESSES);
      expect(checked).toBeLessThanOrEqual(THRESHOLD);
      expect(count(outcomes, "unauthorized")).toBe(checked);
    } finally {
      for (const p of processes) p.close();
    }
  });
});
