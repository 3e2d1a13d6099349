import fs from "node:fs";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { systemClock } from "../../../src/base/core/clock.js";
import { createApiKey } from "../../../src/domain/auth/index.js";
import { cliOk, runCli, type ServerProcess, STACK_TRACE, startServer } from "../../helpers/cli.js";
import { createEmptyDatabase, type EmptyDatabase } from "../../helpers/empty-database.js";
import { createTestDatabase, describeEnginesTogether, type TestDatabase } from "../../helpers/engines.js";
import type { JsonResponse } from "../../helpers/gateway.js";

// Every step spawns a CLI process (a second of Node start-up each); on two busy cores a test
// of several steps can pass 30 s without anything being wrong.
vi.setConfig({ testTimeout: 120_000 });

/** The parsed JSON of an answer, as loosely typed as the assertions that read it. */
async function bodyOf(response: Response): Promise<JsonResponse["body"]> {
  return response.json();
}

/** Polls a request until it answers `status`: a change made by another process reaches a running server shortly after. */
async function eventually(request: () => Promise<Response>, status: number): Promise<Response> {
  const deadline = Date.now() + 3_000;
  for (;;) {
    const response = await request();
    if (response.status === status || Date.now() > deadline) return response;
    await response.arrayBuffer();
    await new Promise((r) => setTimeout(r, 50));
  }
}

describeEnginesTogether("switchboard CLI", (engine) => {
  let db: TestDatabase;
  let env: Record<string, string>;
  let server: ServerProcess | undefined;
  /** The key `accounts create` printed for cli-user. */
  let apiKey: string;

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    env = { DATABASE_URL: db.url, SQLITE_SYNCHRONOUS: "NORMAL" };
  });
  afterAll(async () => {
    await server?.stop("SIGKILL");
    await db.drop();
  });

  const runningServer = async (): Promise<ServerProcess> => {
    server ??= await startServer("api", env);
    return server;
  };
  const balance = async (apiKey: string) =>
    fetch(`${(await runningServer()).url}/api/v2/balance`, { headers: { authorization: `Bearer ${apiKey}` } });

  it("creates an account with opening credits whose key works against a server on the same database", async () => {
    const stdout = await cliOk(
      [
        "accounts",
        "create",
        "--username",
        "cli-user",
        "--password",
        "cli-password",
        "--credits",
        "sms=100,whatsapp=5",
        "--json",
      ],
      env,
    );
    const created = JSON.parse(stdout);
    // No sender ID, DLT registration or template yet: the answer says the account is not ready.
    expect(created).toEqual({
      id: expect.any(Number),
      username: "cli-user",
      api_key: expect.stringMatching(/^sb_/),
      ready: false,
      missing: expect.any(Array),
      // No server has started on this database yet: judged by the CLI's own settings (decision 0169).
      readiness_judged_by: {
        from: "environment",
        dlt_chain_required: false,
        dlt_templates_all_routes: false,
        server_started_at: null,
      },
    });
    expect(Object.keys(created)).toEqual(["id", "username", "api_key", "ready", "missing", "readiness_judged_by"]);
    apiKey = created.api_key;

    const response = await balance(created.api_key);
    expect(response.status).toBe(200);
    expect((await bodyOf(response)).data.balance).toBe(100);
    const shown = JSON.parse(await cliOk(["accounts", "show", "cli-user", "--json"], env));
    expect(shown.balances).toEqual({ sms: 100, international: 0, whatsapp: 5, email: 0, voice: 0 });
  });

  it("creates more keys, with their own rate limit, that work at once", async () => {
    const plain = JSON.parse(await cliOk(["keys", "create", "--account", "cli-user", "--json"], env));
    expect(plain).toMatchObject({ id: expect.any(Number), account: "cli-user", rate_limit: 60 });
    const limited = JSON.parse(
      await cliOk(["keys", "create", "--account", "cli-user", "--rate-limit", "7", "--name", "reports", "--json"], env),
    );
    expect(limited).toMatchObject({ account: "cli-user", rate_limit: 7, api_key: expect.stringMatching(/^sb_/) });
    expect(limited.api_key).not.toBe(plain.api_key);
    expect((await balance(limited.api_key)).status).toBe(200);
    expect(plain).toMatchObject({ scopes: ["send", "read", "manage", "billing"], allowed_ips: null });
    // A key held to scopes and addresses: the balance needs `billing`.
    const scoped = JSON.parse(
      await cliOk(
        [
          "keys",
          "create",
          "--account",
          "cli-user",
          "--scopes",
          "read,send",
          "--allowed-ips",
          "127.0.0.1, ::1",
          "--json",
        ],
        env,
      ),
    );
    expect(scoped).toMatchObject({ scopes: ["send", "read"], allowed_ips: ["127.0.0.1", "::1"] });
    const refused = await balance(scoped.api_key);
    expect(refused.status).toBe(403);
    expect((await bodyOf(refused)).error.code).toBe("insufficient_scope");
    const bad = await runCli(["keys", "create", "--account", "cli-user", "--scopes", "everything"], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("is not a scope");
    await cliOk(["keys", "revoke", "--id", String(scoped.id)], env);
  });

  it("adds credits to a wallet", async () => {
    expect(await cliOk(["credits", "add", "--account", "cli-user", "--wallet", "sms", "--amount", "50"], env)).toBe(
      "cli-user sms balance: 150\n",
    );
    const json = JSON.parse(
      await cliOk(["credits", "add", "--account", "cli-user", "--wallet", "voice", "--amount", "2.5", "--json"], env),
    );
    expect(json).toEqual({ account: "cli-user", wallet: "voice", balance: 2.5 });
    expect((await bodyOf(await balance(apiKey))).data.balance).toBe(150);
  });

  it("adds an approved sender ID that the account sees", async () => {
    expect(await cliOk(["sender-ids", "add", "--account", "cli-user", "--sender", "ABCDEF", "--approve"], env)).toBe(
      // Approved at once, it is white-listed as the account's DLT header too (decision 0151).
      "sender ID ABCDEF and DLT header for cli-user: approved\n",
    );
    // The opt-out goes with --approve: alone it is refused, and nothing is added.
    const alone = await runCli(
      ["sender-ids", "add", "--account", "cli-user", "--sender", "NOTYET", "--no-dlt-header"],
      env,
    );
    expect([alone.code, alone.stderr]).toEqual([
      1,
      "switchboard: --no-dlt-header goes with --approve: a pending sender ID white-lists no DLT header.\n",
    ]);
    const response = await fetch(`${(await runningServer()).url}/api/v2/sender-ids`, {
      headers: { "x-api-key": apiKey },
    });
    expect((await bodyOf(response)).data).toEqual([
      { sender_id: "ABCDEF", status: "approved", created_at: expect.stringMatching(/Z$/) },
    ]);
  });

  it("approves and rejects a pending sender ID by its id, and refuses an unknown id", async () => {
    expect(await cliOk(["sender-ids", "add", "--account", "cli-user", "--sender", "REVIEW"], env)).toBe(
      "sender ID REVIEW for cli-user: pending\n",
    );
    const [pending] = JSON.parse(
      await cliOk(["sender-ids", "list", "--account", "cli-user", "--status", "pending", "--json"], env),
    );
    expect(pending).toMatchObject({ sender_id: "REVIEW", status: "pending" });
    expect(await cliOk(["sender-ids", "approve", "--id", String(pending.id)], env)).toBe(
      // Approving white-lists it as the account's DLT header too (decision 0151).
      "approved sender ID REVIEW and DLT header of account cli-user\n",
    );
    expect(JSON.parse(await cliOk(["sender-ids", "reject", "--id", String(pending.id), "--json"], env))).toMatchObject({
      sender_id: "REVIEW",
      status: "rejected",
    });
    const unknown = await runCli(["sender-ids", "approve", "--id", "987654"], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe("switchboard: No sender ID with id 987654.\n");
    const refused = await runCli(["sender-ids", "approve", "--id", "x"], env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("use a whole number");
  });

  it("prints its version, and lists sender IDs and keys under a header row (or as JSON)", async () => {
    const { version } = JSON.parse(fs.readFileSync(new URL("../../../package.json", import.meta.url), "utf8"));
    expect(await cliOk(["--version"], env)).toBe(`${version}\n`);
    const senders = (await cliOk(["sender-ids", "list", "--account", "cli-user"], env)).split("\n");
    expect(senders[0]).toMatch(/^ID\s+SENDER ID\s+STATUS\s+CREATED$/);
    expect(senders[1]).toMatch(/^\d+\s+ABCDEF\s+approved\s+\d{4}-\d\d-\d\dT/);
    const json = JSON.parse(
      await cliOk(["sender-ids", "list", "--account", "cli-user", "--status", "approved", "--json"], env),
    );
    expect(json).toEqual([expect.objectContaining({ sender_id: "ABCDEF", status: "approved" })]);
    // A key one of the account's users made names them; the CLI's own names no one.
    await cliOk(
      [
        "users",
        "add",
        "--account",
        "cli-user",
        "--login",
        "kdev",
        "--role",
        "developer",
        "--password",
        "kdev-password-1",
      ],
      env,
    );
    const user = await db.store.db
      .selectFrom("account_users")
      .innerJoin("accounts", "accounts.id", "account_users.account_id")
      .select(["account_users.id", "accounts.id as account_id"])
      .where("accounts.username", "=", "cli-user")
      .where("account_users.login", "=", "kdev")
      .executeTakeFirstOrThrow();
    const made = await createApiKey(db.store.db, systemClock, user.account_id, {
      name: "devkey",
      maker: { login: "kdev", userId: user.id },
    });
    const keys = (await cliOk(["keys", "list", "--account", "cli-user"], env)).split("\n");
    expect(keys[0]).toMatch(/^ID\s+PREFIX\s+NAME\s+RATE\/MIN\s+SCOPES\s+ALLOWED IPS\s+CREATED BY\s+CREATED\s+REVOKED$/);
    expect(keys[1]).toMatch(/^\d+\s+sb_\S+\s+default\s+60\s+send,read,manage,billing\s+any\s+-\s+\S+\s+-$/);
    expect(keys.find((line) => line.startsWith(`${made.id} `))).toMatch(/\s+devkey\s+60\s+\S+\s+any\s+kdev\s+\S+\s+-$/);
    const listed = JSON.parse(await cliOk(["keys", "list", "--account", "cli-user", "--json"], env));
    expect(listed.find((key: { id: number }) => key.id === made.id)).toMatchObject({ created_by: "kdev" });
    expect(listed[0]).toMatchObject({ created_by: null });
  });

  it("blocks an account, and the running server refuses its key", async () => {
    const key = apiKey;
    expect((await balance(key)).status).toBe(200);
    const blocked = JSON.parse(
      await cliOk(["accounts", "set", "--username", "cli-user", "--status", "blocked", "--json"], env),
    );
    expect(blocked).toMatchObject({ username: "cli-user", status: "blocked" });
    const refused = await eventually(() => balance(key), 403);
    expect(refused.status).toBe(403);
    expect((await bodyOf(refused)).error.code).toBe("account_inactive");
    await cliOk(["accounts", "set", "--username", "cli-user", "--status", "active"], env);
    expect((await eventually(() => balance(key), 200)).status).toBe(200);
  });

  it("revokes a key, and the running server refuses it", async () => {
    const key = JSON.parse(await cliOk(["keys", "create", "--account", "cli-user", "--json"], env));
    expect((await balance(key.api_key)).status).toBe(200);
    expect(await cliOk(["keys", "revoke", "--id", String(key.id)], env)).toBe(`revoked key ${key.id}\n`);
    expect((await eventually(() => balance(key.api_key), 401)).status).toBe(401);
    const again = await runCli(["keys", "revoke", "--id", String(key.id)], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(`switchboard: No active API key with id ${key.id}.\n`);
  });

  // Each case is its own process and changes nothing, so they run side by side.
  it.concurrent.for<[string, string[], RegExp]>([
    [
      "an unknown account",
      ["keys", "create", "--account", "nobody-here"],
      /^switchboard: No account named "nobody-here"\.$/,
    ],
    [
      "an unknown account for credits",
      ["credits", "add", "--account", "nobody-here", "--wallet", "sms", "--amount", "5"],
      /^switchboard: No account named "nobody-here"\.$/,
    ],
    [
      "a bad wallet",
      ["credits", "add", "--account", "cli-user", "--wallet", "gold", "--amount", "5"],
      /^switchboard: Unknown wallet "gold"; use sms, international, whatsapp, email, voice\.$/,
    ],
    [
      "a negative amount",
      ["credits", "add", "--account", "cli-user", "--wallet", "sms", "--amount", "-5"],
      /argument '-5' is invalid\. use a positive number/,
    ],
    [
      "a duplicate username",
      ["accounts", "create", "--username", "cli-user", "--password", "another-password"],
      /^switchboard: An account named "cli-user" already exists \(usernames ignore case\)\.$/,
    ],
    [
      "a username that differs from an existing one only in case",
      ["accounts", "create", "--username", "CLI-User", "--password", "another-password"],
      /^switchboard: An account named "CLI-User" already exists \(usernames ignore case\)\.$/,
    ],
    [
      "an unknown wallet in --credits",
      ["accounts", "create", "--username", "cli-new1", "--password", "cli-password", "--credits", "sms=5,gold=1"],
      /^switchboard: Unknown wallet "gold"; use sms, /,
    ],
    [
      "a non-number in --credits",
      ["accounts", "create", "--username", "cli-new2", "--password", "cli-password", "--credits", "sms=lots"],
      /^switchboard: Credits for sms must be a number of 0 or more \(got "lots"\)\.$/,
    ],
    [
      "a wallet without an amount in --credits",
      ["accounts", "create", "--username", "cli-new3", "--password", "cli-password", "--credits", "sms"],
      /^switchboard: Credits for sms must be a number/,
    ],
    [
      "a bad status",
      ["accounts", "set", "--username", "cli-user", "--status", "gone"],
      /^switchboard: Status must be active, inactive or blocked\.$/,
    ],
    [
      "a bad sender ID",
      ["sender-ids", "add", "--account", "cli-user", "--sender", "!"],
      /^switchboard: A sender ID is /,
    ],
    ["a missing required option", ["credits", "add", "--account", "cli-user"], /required option '--wallet <wallet>'/],
  ])("refuses %s with a non-zero exit and one clear line, never a stack trace", async ([, args, message], {
    expect,
  }) => {
    const result = await runCli(args, env);
    expect(result.code).not.toBe(0);
    expect(result.stderr.split("\n")[0]).toMatch(message);
    expect(result.stderr).not.toMatch(STACK_TRACE);
    expect(result.stdout).toBe("");
  });

  it("created nothing for the refused commands", async () => {
    const names = JSON.parse(await cliOk(["accounts", "list", "--json"], env)).map(
      (a: { username: string }) => a.username,
    );
    expect(names).toEqual(["cli-user"]);
    const shown = JSON.parse(await cliOk(["accounts", "show", "cli-user", "--json"], env));
    expect(shown.balances).toMatchObject({ sms: 150, voice: 2.5 });
  });
});

describeEnginesTogether("switchboard on an empty database", (engine) => {
  let empty: EmptyDatabase;
  beforeAll(async () => {
    empty = await createEmptyDatabase(engine);
  });
  afterAll(() => empty.drop());

  // What `start` prints and seeds on an empty database, and that SIGTERM and SIGINT end it with 0,
  // test/app/first-start.test.ts checks, on the first starts it makes there anyway.
  it("migrate creates the schema, and running it again changes nothing", async () => {
    expect(await empty.tables()).toEqual([]);
    expect(await cliOk(["migrate"], { DATABASE_URL: empty.url })).toBe("migrations applied\n");
    const tables = await empty.tables();
    expect(tables).toEqual(expect.arrayContaining(["accounts", "wallets", "ledger_entries", "api_keys", "sender_ids"]));
    expect(await cliOk(["migrate"], { DATABASE_URL: empty.url })).toBe("migrations applied\n");
    expect(await empty.tables()).toEqual(tables);
  });
});
