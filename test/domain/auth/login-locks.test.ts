// Failed password logins lock the source address before the account (issue 22): anyone who knew
// a username could lock it for everyone for 15 minutes. Requests come from 127.0.0.2, .3…
// (Linux routes all of 127/8 to loopback), so each is a different source address to the server.
// And an unknown username costs the same argon2 check as a wrong password.
import { beforeAll, expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { accountCredentials } from "../../../src/domain/accounts/index.js";
import { Authenticator } from "../../../src/domain/auth/index.js";
import { realCostPassword } from "../../helpers/cheap-hashes.js";
import { cliOk } from "../../helpers/cli.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { RawConnection } from "../../helpers/raw-http.js";

const THRESHOLD = 3;
const ADDRESSES = 3;

describeEachEngine("login locks per source address", (engine) => {
  // Starts at the real time: the CLI reads the system clock when it lists the locks in force.
  const clock = new ManualClock(new Date());
  const gateway = useTestGateway(engine, {
    clock,
    env: { LOGIN_LOCK_THRESHOLD: String(THRESHOLD), LOGIN_LOCK_ADDRESSES: String(ADDRESSES) },
  });
  let operator: TestAccount;

  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
  });

  /** GET /api/getcredits from a chosen loopback address; the plain-text answer. */
  const getcredits = async (t: TestGateway, from: string, username: string, password: string) => {
    const connection = await RawConnection.open(t.url, from);
    try {
      const answer = await connection.request("GET", `/api/getcredits?${new URLSearchParams({ username, password })}`);
      return answer.body;
    } finally {
      connection.close();
    }
  };
  const admin = (t: TestGateway, method: string, path: string) =>
    call(t, method, `/admin/api${path}`, { headers: { authorization: `Bearer ${operator.apiKey}` } });

  it("locks the guessing address out, and the account's owner still logs in from another", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 7 } });
    for (let i = 0; i < THRESHOLD; i++) expect(await getcredits(t, "127.0.0.2", account.username, "guess")).toBe("-7");
    expect(await getcredits(t, "127.0.0.2", account.username, account.password)).toBe("-16");
    expect(await getcredits(t, "127.0.0.1", account.username, account.password)).toBe("7");
    // The owner's success does not unlock the attacker's address.
    expect(await getcredits(t, "127.0.0.2", account.username, account.password)).toBe("-16");
    // The lock is for this username only: the address may log in to another account.
    const other = await buildAccount(t, { credits: { sms: 3 } });
    expect(await getcredits(t, "127.0.0.2", other.username, other.password)).toBe("3");
    clock.advance(15 * 60_000 + 1_000);
    expect(await getcredits(t, "127.0.0.2", account.username, account.password)).toBe("7");
  });

  it("counts an address's failures in a row: its own success starts them again", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 7 } });
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < THRESHOLD - 1; i++) await getcredits(t, "127.0.0.3", account.username, "guess");
      expect(await getcredits(t, "127.0.0.3", account.username, account.password)).toBe("7");
    }
  });

  it("locks the whole account when LOGIN_LOCK_ADDRESSES addresses are locked out at once", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 7 } });
    for (let n = 0; n < ADDRESSES; n++) {
      for (let i = 0; i < THRESHOLD; i++) await getcredits(t, `127.0.1.${n + 1}`, account.username, "guess");
    }
    expect(await getcredits(t, "127.0.0.1", account.username, account.password)).toBe("-16");
    const locks = await admin(t, "GET", "/login-locks");
    const mine = (locks.body.data as Array<{ username: string }>).filter((l) => l.username === account.username);
    expect(mine).toEqual([
      { username: account.username, scope: "account", address: null, locked_until: expect.stringMatching(/Z$/) },
      ...[1, 2, 3].map((n) => ({
        username: account.username,
        scope: "address",
        address: `127.0.1.${n}`,
        locked_until: expect.stringMatching(/Z$/),
      })),
    ]);
    const cleared = await admin(t, "DELETE", `/accounts/${account.username}/login-locks`);
    expect(cleared.body).toEqual({ status: "success", data: { cleared: 4 } });
    expect(await getcredits(t, "127.0.1.1", account.username, account.password)).toBe("7");
    expect(await getcredits(t, "127.0.0.1", account.username, account.password)).toBe("7");
  });

  it("lets the operator clear one address's lock through the API and the CLI", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 7 } });
    for (const from of ["127.0.2.1", "127.0.2.2"]) {
      for (let i = 0; i < THRESHOLD; i++) await getcredits(t, from, account.username, "guess");
    }
    const one = await admin(t, "DELETE", `/accounts/${account.username}/login-locks?address=127.0.2.1`);
    expect(one.body.data).toEqual({ cleared: 1 });
    expect(await getcredits(t, "127.0.2.1", account.username, account.password)).toBe("7");
    expect(await getcredits(t, "127.0.2.2", account.username, account.password)).toBe("-16");

    const env = { DATABASE_URL: t.db.url, SQLITE_SYNCHRONOUS: "NORMAL" };
    const listed = await cliOk(["login-locks", "list"], env);
    expect(listed.split("\n")[0]).toMatch(/^USERNAME\s+SCOPE\s+ADDRESS\s+LOCKED UNTIL$/);
    expect(listed).toMatch(new RegExp(`^${account.username}\\s+address\\s+127\\.0\\.2\\.2\\s+\\d{4}-`, "m"));
    expect(await cliOk(["login-locks", "clear", account.username, "--address", "127.0.2.2"], env)).toBe(
      `cleared 1 login lock(s) of ${account.username}\n`,
    );
    expect(await getcredits(t, "127.0.2.2", account.username, account.password)).toBe("7");
    expect((await admin(t, "DELETE", "/accounts/nobody-here/login-locks")).status).toBe(404);
  });

  it("checks an unknown username's password like a known one's, so timing tells nothing", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 7 } });
    const checked: string[] = [];
    const authenticator = new Authenticator(
      t.db.store,
      accountCredentials,
      t.clock,
      { passwordCacheSeconds: 300, loginLockThreshold: 0, loginLockMinutes: 15, loginLockAddresses: 0 },
      {
        verify: async (hash, password) => {
          checked.push(password);
          return (await import("../../../src/domain/auth/index.js")).passwordMatches(hash, password);
        },
      },
    );
    try {
      await expect(authenticator.byPassword("no-such-user", "guess-1", "127.0.0.9")).rejects.toMatchObject({
        code: "unauthorized",
      });
      await expect(authenticator.byPassword(account.username, "guess-2", "127.0.0.9")).rejects.toMatchObject({
        code: "unauthorized",
      });
      expect(checked).toEqual(["guess-1", "guess-2"]);
      // A remembered pair skips the check, but only the right password can be remembered.
      await authenticator.byPassword(account.username, account.password, "127.0.0.9");
      await authenticator.byPassword(account.username, account.password, "127.0.0.9");
      await expect(authenticator.byPassword("no-such-user", account.password, "127.0.0.9")).rejects.toThrow();
      expect(checked).toEqual(["guess-1", "guess-2", account.password, account.password]);
    } finally {
      authenticator.close();
    }
  });

  // Unknown usernames are remembered (guessing names must not cost a query each), but a legacy
  // client's username has no bound of its own: 2,000 names of 50,000 characters kept 100 MB.
  it("does not remember a username longer than any account's, so long guesses cost no memory", async () => {
    const t = gateway();
    const authenticator = new Authenticator(
      t.db.store,
      accountCredentials,
      t.clock,
      { passwordCacheSeconds: 300, loginLockThreshold: 0, loginLockMinutes: 15, loginLockAddresses: 0 },
      { verify: async () => false },
    );
    try {
      const heap = () => {
        globalThis.gc?.();
        return process.memoryUsage().heapUsed;
      };
      const before = heap();
      for (let i = 0; i < 2_000; i++) {
        const name = `${i}-${"x".repeat(50_000)}`;
        await expect(authenticator.byPassword(name, "guess", "127.0.0.9")).rejects.toMatchObject({
          code: "unauthorized",
        });
      }
      expect(heap() - before).toBeLessThan(10 * 1024 * 1024);
    } finally {
      authenticator.close();
    }
  });

  // The finding through the server: a legacy call with an unknown username answered in ~3 ms,
  // a known one with a wrong password in ~26 ms (argon2). Medians of interleaved calls, each
  // from its own address (no lock comes into play); before the fix the ratio was about 0.1.
  it("answers an unknown username about as slowly as a wrong password, over HTTP", async () => {
    const t = gateway();
    // Hashed at the real cost, as the dummy hash an unknown username is checked against is.
    const account = await buildAccount(t, { credits: { sms: 7 }, password: realCostPassword() });
    const timed = async (from: string, username: string) => {
      const connection = await RawConnection.open(t.url, from);
      try {
        const target = `/api/getcredits?${new URLSearchParams({ username, password: "a-wrong-guess" })}`;
        const started = performance.now();
        const answer = await connection.request("GET", target);
        const ms = performance.now() - started;
        expect(answer.body).toBe("-7");
        return ms;
      } finally {
        connection.close();
      }
    };
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
    const unknown: number[] = [];
    const known: number[] = [];
    for (let i = 1; i <= 9; i++) {
      unknown.push(await timed(`127.0.5.${i}`, `nobody-${i}`));
      known.push(await timed(`127.0.6.${i}`, account.username));
    }
    // Without the dummy hash an unknown name answered in a tenth of the time; a known name also
    // records its failure, and other test files share the machine, so the bound is a quarter.
    expect(median(unknown), `unknown ${unknown.map(Math.round)} known ${known.map(Math.round)}`).toBeGreaterThan(
      median(known) * 0.25,
    );
  });

  it("housekeeping deletes the failures that no longer count once the clock passes the lock period", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 7 } });
    const rows = async () =>
      (
        await t.db.store.db
          .selectFrom("login_failures")
          .select("address")
          .where("account_id", "=", account.id)
          .orderBy("address")
          .execute()
      ).map((row) => row.address);
    // A round that began after the clock moved: it prunes what no longer counts at that time.
    const nextRound = () => t.gateway.workers!.housekeeping.afterRounds(1);

    await getcredits(t, "127.0.3.1", account.username, "guess");
    for (let i = 0; i < THRESHOLD; i++) await getcredits(t, "127.0.3.2", account.username, "guess");
    clock.advance(10 * 60_000);
    await getcredits(t, "127.0.3.3", account.username, "guess");
    expect(await rows()).toEqual(["127.0.3.1", "127.0.3.2", "127.0.3.3"]);

    // 14 minutes on, the first failures still count and the lock is in force: nothing goes.
    clock.advance(4 * 60_000);
    await nextRound();
    expect(await rows()).toEqual(["127.0.3.1", "127.0.3.2", "127.0.3.3"]);
    expect(await getcredits(t, "127.0.3.2", account.username, account.password)).toBe("-16");

    // Past 15 minutes: the lone failure no longer counts and the lock has ended; the recent one stays.
    clock.advance(2 * 60_000);
    await nextRound();
    expect(await rows()).toEqual(["127.0.3.3"]);
    // The recent failure still counts toward a lock.
    for (let i = 0; i < THRESHOLD - 1; i++) await getcredits(t, "127.0.3.3", account.username, "guess");
    expect(await getcredits(t, "127.0.3.3", account.username, account.password)).toBe("-16");
    expect(await getcredits(t, "127.0.3.2", account.username, account.password)).toBe("7");
  });
});
