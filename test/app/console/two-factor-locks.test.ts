// Wrong two-factor codes in the login locks (audit S4, decision 0167), through the real server on
// both engines, each address a client of its own behind TRUST_PROXY: a guesser who has a user's
// password reaches the lock of its own address (`<login> <address>`) after LOGIN_LOCK_THRESHOLD
// wrong codes across challenges, since the password each new challenge needs no longer starts
// the count again; the account is not locked, and the user from another address, and the owner,
// still sign in. Concurrent wrong codes are counted to the threshold exactly.
import { expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { addConsoleUser, callAs, sessionOf, userPassword } from "../../helpers/console.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { totpCode } from "../../helpers/totp.js";

const STEP = 30_000;
const THRESHOLD = 6;

describeEachEngine("two-factor codes in the login locks", (engine) => {
  const clock = new ManualClock("2026-11-22T06:30:05Z");
  const gateway = useTestGateway(engine, {
    clock,
    env: { LOGIN_LOCK_THRESHOLD: String(THRESHOLD), LOGIN_LOCK_ADDRESSES: "10", TRUST_PROXY: "127.0.0.1" },
  });

  const from = (address: string) => ({ "x-forwarded-for": address });
  const signIn = (t: TestGateway, account: TestAccount, login: string, password: string, address: string) =>
    call(t, "POST", "/console/session", {
      headers: from(address),
      json: { username: account.username, login, password },
    });
  const code = (t: TestGateway, challenge: string, value: string, address: string) =>
    call(t, "POST", "/console/session/totp", { headers: from(address), json: { challenge, code: value } });
  /** A code the factor does not make now (nor a step either side). */
  const wrongCode = (secret: string) => {
    const now = clock.now().getTime();
    const near = [-STEP, 0, STEP].map((d) => totpCode(secret, now + d));
    return ["000000", "111111", "222222", "333333"].find((c) => !near.includes(c))!;
  };

  /** A user with a password and a confirmed factor; answers its secret. */
  async function userWithFactor(t: TestGateway, account: TestAccount, login: string) {
    await addConsoleUser(t, account, login, "admin", { signIn: false });
    const signedIn = await signIn(t, account, login, userPassword(login), "198.51.100.1");
    expect(signedIn.status, signedIn.text).toBe(201);
    const session = sessionOf(signedIn);
    const headers = from("198.51.100.1");
    const started = await callAs(t, session, "POST", "/console/two-factor", { json: {}, headers });
    expect(started.status, started.text).toBe(201);
    const secret: string = started.body.data.secret;
    const confirmed = await callAs(t, session, "POST", "/console/two-factor/confirm", {
      json: { code: totpCode(secret, clock.now().getTime()) },
      headers,
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    clock.advance(STEP);
    return secret;
  }

  async function locks(t: TestGateway, operator: TestAccount, account: TestAccount) {
    const answer = await call(t, "GET", "/admin/api/login-locks", {
      headers: { authorization: `Bearer ${operator.apiKey}` },
    });
    expect(answer.status, answer.text).toBe(200);
    return (answer.body.data as { username: string; scope: string; address: string | null }[])
      .filter((lock) => lock.username === account.username)
      .map(({ scope, address }) => ({ scope, address }));
  }

  it("locks the guessing address, not the account, after the threshold of wrong codes across challenges", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const account = await buildAccount(t);
    const secret = await userWithFactor(t, account, "uadmin");
    const guesser = "203.0.113.4";
    // Two challenges of half the threshold each: every wrong code counts, the password between them does not reset.
    for (let round = 0; round < 2; round++) {
      const challenge = await signIn(t, account, "uadmin", userPassword("uadmin"), guesser);
      expect(challenge.status, `round ${round}: ${challenge.text}`).toBe(200);
      for (let i = 0; i < THRESHOLD / 2; i++) {
        const wrong = await code(t, challenge.body.data.challenge, wrongCode(secret), guesser);
        expect(wrong.status, `round ${round}, code ${i}`).toBe(401);
      }
    }
    const refused = await signIn(t, account, "uadmin", userPassword("uadmin"), guesser);
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body.error.code).toBe("account_locked");
    expect(await locks(t, operator, account)).toEqual([{ scope: "address", address: `uadmin ${guesser}` }]);

    // The user from another address signs in with a code; the owner from the guesser's address too.
    const elsewhere = await signIn(t, account, "uadmin", userPassword("uadmin"), "203.0.113.5");
    expect(elsewhere.status, elsewhere.text).toBe(200);
    const done = await code(t, elsewhere.body.data.challenge, totpCode(secret, clock.now().getTime()), "203.0.113.5");
    expect(done.status, done.text).toBe(201);
    const owner = await call(t, "POST", "/console/session", {
      headers: from(guesser),
      json: { username: account.username, password: account.password },
    });
    expect(owner.status, owner.text).toBe(201);
  });

  it("keeps the count when the right password comes between wrong codes, and starts it again only on a right code", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const account = await buildAccount(t);
    const secret = await userWithFactor(t, account, "ucount");
    const address = "203.0.113.7";
    const wrongs = async (n: number) => {
      const challenge = (await signIn(t, account, "ucount", userPassword("ucount"), address)).body.data.challenge;
      for (let i = 0; i < n; i++) expect((await code(t, challenge, wrongCode(secret), address)).status).toBe(401);
    };
    await wrongs(THRESHOLD - 1);
    // A right code completes a sign-in: the count starts again.
    const challenge = (await signIn(t, account, "ucount", userPassword("ucount"), address)).body.data.challenge;
    expect((await code(t, challenge, totpCode(secret, clock.now().getTime()), address)).status).toBe(201);
    clock.advance(STEP);
    await wrongs(THRESHOLD - 1);
    expect(await locks(t, operator, account)).toEqual([]);
    await wrongs(1);
    expect(await locks(t, operator, account)).toEqual([{ scope: "address", address: `ucount ${address}` }]);
  });

  it("counts concurrent wrong codes to the threshold exactly", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const account = await buildAccount(t);
    const secret = await userWithFactor(t, account, "uconc");
    const address = "203.0.113.9";
    const challenges: string[] = [];
    for (let i = 0; i < 2; i++) {
      const started = await signIn(t, account, "uconc", userPassword("uconc"), address);
      expect(started.status, started.text).toBe(200);
      challenges.push(started.body.data.challenge);
    }
    const answers = await Promise.all(
      challenges.flatMap((challenge) =>
        Array.from({ length: 5 }, () => code(t, challenge, wrongCode(secret), address)),
      ),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses.filter((s) => s === 401)).toHaveLength(THRESHOLD);
    expect(statuses.filter((s) => s === 403)).toHaveLength(10 - THRESHOLD);
    expect((await signIn(t, account, "uconc", userPassword("uconc"), address)).status).toBe(403);
    expect(await locks(t, operator, account)).toEqual([{ scope: "address", address: `uconc ${address}` }]);
  });
});
