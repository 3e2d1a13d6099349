// `switchboard users …` and `switchboard staff …` against a real database on both engines: users
// added with a password or invited (the link printed and mailed through SMTP_URL), listed, a
// role changed, an invitation sent again (the old link dead, the new one works), one removed;
// the operator's staff the same; bad input told in one line without a stack; every change in
// the audit log as `cli` with the operating-system user and host.
import { hostname, userInfo } from "node:os";
import { simpleParser } from "mailparser";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { systemClock } from "../../../src/base/core/clock.js";
import { cliActor } from "../../../src/domain/audit/index.js";
import { acceptInvitation, pendingInvitation } from "../../../src/domain/auth/index.js";
import { BOUNCE_DOMAIN, FakeRelay } from "../../channels/email/helpers.js";
import { cliOk, runCli, STACK_TRACE } from "../../helpers/cli.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";

vi.setConfig({ testTimeout: 120_000 });

describeEachEngine("switchboard CLI: users and staff", (engine) => {
  const relay = new FakeRelay();
  let db: TestDatabase;
  let env: Record<string, string>;

  beforeAll(async () => {
    await relay.start();
    db = await createTestDatabase(engine);
    env = {
      DATABASE_URL: db.url,
      SQLITE_SYNCHRONOUS: "NORMAL",
      SMTP_URL: relay.url,
      SMTP_TLS_INSECURE: "1",
      EMAIL_BOUNCE_DOMAIN: BOUNCE_DOMAIN,
    };
    await cliOk(["accounts", "create", "--username", "shop", "--password", "password-123", "--json"], env);
    await cliOk(["accounts", "create", "--username", "ops", "--password", "password-456", "--operator", "--json"], env);
  });
  afterAll(async () => {
    await db.drop();
    await relay.stop();
  });

  const tokenOf = (url: string) => new URL(url).searchParams.get("token") ?? "";

  it("adds, lists, changes and removes an account's users", async () => {
    const added = JSON.parse(
      await cliOk(
        [
          "users",
          "add",
          "--account",
          "shop",
          "--login",
          "Dev",
          "--role",
          "developer",
          "--password",
          "dev-password-1",
          "--json",
        ],
        env,
      ),
    );
    expect(added).toMatchObject({ login: "dev", user_role: "developer", status: "active" });
    expect(added.invitation).toBeUndefined();
    const text = await cliOk(
      ["users", "add", "--account", "shop", "--login", "bo", "--role", "billing", "--password", "bo-password-1"],
      env,
    );
    expect(text.trim()).toBe("added bo (billing) to shop");

    const listed = await cliOk(["users", "list", "--account", "shop"], env);
    expect(listed).toMatch(/^LOGIN\s+ROLE\s+STATUS/);
    expect(listed).toMatch(/dev\s+developer\s+active/);
    const changed = JSON.parse(
      await cliOk(["users", "set", "--account", "shop", "--login", "dev", "--role", "support", "--json"], env),
    );
    expect(changed).toMatchObject({ login: "dev", user_role: "support" });
    expect((await cliOk(["users", "remove", "--account", "shop", "--login", "bo"], env)).trim()).toBe(
      "removed bo from shop",
    );
    const after = JSON.parse(await cliOk(["users", "list", "--account", "shop", "--json"], env));
    expect(after.map((u: { login: string }) => u.login)).toEqual(["dev"]);

    for (const [args, message] of [
      [
        ["users", "add", "--account", "shop", "--login", "x1", "--role", "operator_admin", "--password", "long-enough"],
        /user_role/,
      ],
      [["users", "add", "--account", "nobody", "--login", "x1", "--role", "support"], /nobody/],
      [["users", "set", "--account", "shop", "--login", "dev"], /at least one/],
      [["users", "remove", "--account", "shop", "--login", "ghost"], /ghost/],
      [["users", "list", "--account", "ops"], /staff/],
    ] as const) {
      const result = await runCli([...args], env);
      expect(result.code, args.join(" ")).toBe(1);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toMatch(STACK_TRACE);
    }
  });

  it("invites by a printed and mailed link, and sends a new one that replaces it", async () => {
    const invited = JSON.parse(
      await cliOk(
        [
          "users",
          "add",
          "--account",
          "shop",
          "--login",
          "sue",
          "--role",
          "support",
          "--email",
          "sue@example.org",
          "--console-url",
          "https://console.example.in/",
          "--json",
        ],
        env,
      ),
    );
    expect(invited).toMatchObject({ login: "sue", status: "invited", invitation: { emailed: true } });
    expect(invited.invitation.url).toMatch(/^https:\/\/console\.example\.in\/invitation\?token=[\w-]{43}$/);
    await expect.poll(() => relay.received.length).toBeGreaterThan(0);
    const mail = await simpleParser(relay.received.at(-1)!.raw);
    expect(mail.text).toContain(invited.invitation.url);
    const first = tokenOf(invited.invitation.url);

    const mails = relay.received.length;
    const again = await cliOk(["users", "invite", "--account", "shop", "--login", "sue"], env);
    expect(again).toMatch(
      /^invitation link for sue \(works once, until \S+Z; emailed\):\nhttp:\/\/localhost:\d+\/invitation\?token=/,
    );
    const second = tokenOf(again.trim().split("\n").at(-1)!);
    await expect.poll(() => relay.received.length).toBe(mails + 1);

    const now = Date.now();
    await expect(pendingInvitation(db.store.db, first, now)).rejects.toThrow(/unknown, used or expired/);
    await pendingInvitation(db.store.db, second, now);
    await acceptInvitation(db.store, { clock: systemClock, actor: () => cliActor() }, second, "sue-password-1");
    const active = await runCli(["users", "invite", "--account", "shop", "--login", "sue"], env);
    expect(active.code).toBe(1);
    expect(active.stderr).toMatch(/set a password already/);
  });

  it("manages the operator's staff, and records every change as the CLI", async () => {
    const added = JSON.parse(
      await cliOk(
        ["staff", "add", "--login", "olga", "--role", "operator_finance", "--email", "olga@example.org", "--json"],
        env,
      ),
    );
    expect(added).toMatchObject({ login: "olga", user_role: "operator_finance", status: "invited" });
    const again = JSON.parse(await cliOk(["staff", "invite", "--operator", "ops", "--login", "olga", "--json"], env));
    expect(tokenOf(again.invitation.url)).not.toBe(tokenOf(added.invitation.url));
    const listed = JSON.parse(await cliOk(["staff", "list", "--json"], env));
    expect(listed).toMatchObject([{ login: "olga", user_role: "operator_finance" }]);
    const refused = await runCli(
      ["staff", "add", "--login", "x2", "--role", "support", "--password", "long-enough"],
      env,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/user_role must be one of operator_admin/);
    expect((await runCli(["staff", "list", "--operator", "shop"], env)).stderr).toMatch(/not an operator account/);

    const audit = JSON.parse(await cliOk(["audit", "list", "--action", "user", "--json"], env));
    const actions = audit.data.map((entry: { action: string }) => entry.action);
    expect(actions).toEqual(
      expect.arrayContaining(["user.create", "user.invite", "user.invite_resend", "user.role_change", "user.delete"]),
    );
    for (const entry of audit.data.filter((e: { action: string }) => e.action !== "user.invite_accept")) {
      expect(entry).toMatchObject({ actor: "cli", channel: "cli", credential: `${userInfo().username}@${hostname()}` });
    }
  });

  it("changes a key's scopes and addresses with keys set, audited before → after", async () => {
    const made = JSON.parse(await cliOk(["keys", "create", "--account", "shop", "--name", "reports", "--json"], env));
    const changed = JSON.parse(
      await cliOk(
        ["keys", "set", "--id", String(made.id), "--scopes", "read", "--allowed-ips", "203.0.113.0/24", "--json"],
        env,
      ),
    );
    expect(changed).toMatchObject({ id: made.id, name: "reports", scopes: ["read"], allowed_ips: ["203.0.113.0/24"] });
    const text = await cliOk(["keys", "set", "--id", String(made.id), "--allowed-ips", "none", "--name", "none"], env);
    expect(text).toMatch(/^changed key \d+ \(sb_\S+\): scopes read; from any address/);
    const bad = await runCli(["keys", "set", "--id", String(made.id), "--allowed-ips", "10.0.0.0/33"], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/10\.0\.0\.0\/33/);
    expect(bad.stderr).not.toMatch(STACK_TRACE);
    expect((await runCli(["keys", "set", "--id", String(made.id)], env)).code).toBe(1);
    const audit = JSON.parse(await cliOk(["audit", "list", "--action", "key.limits", "--json"], env));
    expect(audit.data[0]).toMatchObject({
      actor: "cli",
      before: { scopes: ["read"], allowed_ips: ["203.0.113.0/24"], name: "reports" },
      after: { scopes: ["read"], allowed_ips: null, name: null },
    });
  });
});
