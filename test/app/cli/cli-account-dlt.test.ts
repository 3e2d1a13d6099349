// Issue 40 in the account commands, through the real executable: `accounts set --shorten-urls`
// sets the account's default for tracked short links (shown by `accounts show`), and with
// DLT_CHAIN_REQUIRED on, `accounts show` names each entity without a declared telemarketer chain
// as a gap, with the command that declares it; without the setting the same account is ready.
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { cliOk, runCli, STACK_TRACE } from "../../helpers/cli.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";

vi.setConfig({ testTimeout: 120_000 });

const ENTITY = "1101160000000000091";

describeEachEngine("switchboard CLI: an account's short links and telemarketer chain", (engine) => {
  let db: TestDatabase;
  let env: Record<string, string>;
  let chainRequired: Record<string, string>;

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    env = { DATABASE_URL: db.url, SQLITE_SYNCHRONOUS: "NORMAL" };
    chainRequired = { ...env, DLT_CHAIN_REQUIRED: "1", DLT_TM_ID: "1702000000000000099" };
    await cliOk(
      [
        "accounts",
        "create",
        "--username",
        "chain-user",
        "--password",
        "a-long-password",
        "--sender",
        "CHAINS",
        "--dlt-entity",
        ENTITY,
        "--template",
        "Your OTP is {#var#}",
        "--credits",
        "sms=10",
      ],
      env,
    );
    await cliOk(["accounts", "set", "--username", "chain-user", "--dlt-scrubbing", "on"], env);
  });
  afterAll(async () => {
    await db.drop();
  });

  it("sets the account's default for tracked short links on and off, and refuses other values", async () => {
    const on = JSON.parse(
      await cliOk(["accounts", "set", "--username", "chain-user", "--shorten-urls", "on", "--json"], env),
    );
    expect(on.shorten_urls).toBe(true);
    expect(await cliOk(["accounts", "show", "chain-user"], env)).toContain("short links on)");
    const off = JSON.parse(
      await cliOk(["accounts", "set", "--username", "chain-user", "--shorten-urls", "off", "--json"], env),
    );
    expect(off.shorten_urls).toBe(false);
    expect(await cliOk(["accounts", "show", "chain-user"], env)).toContain("short links off)");
    const bad = await runCli(["accounts", "set", "--username", "chain-user", "--shorten-urls", "maybe"], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/on or off/);
    expect(bad.stderr).not.toMatch(STACK_TRACE);
  });

  it("lists an entity without a chain as missing when DLT_CHAIN_REQUIRED is on, and not once it is declared", async () => {
    const relaxed = JSON.parse(await cliOk(["accounts", "show", "chain-user", "--json"], env));
    expect(relaxed).toMatchObject({ ready: true, missing: [] });
    expect(relaxed.registrations.dlt_entities_without_chain).toEqual([ENTITY]);

    const strict = JSON.parse(await cliOk(["accounts", "show", "chain-user", "--json"], chainRequired));
    expect(strict.ready).toBe(false);
    expect(strict.missing).toEqual([
      {
        what: "dlt_chain",
        message: `DLT entity ${ENTITY} has no declared telemarketer chain: its sends are refused (-31) while DLT_CHAIN_REQUIRED is on.`,
        command: expect.stringContaining(`dlt chains set --account chain-user --entity-id ${ENTITY} --chain`),
        api: expect.stringContaining("/dlt/chains"),
      },
    ]);
    const text = await cliOk(["accounts", "show", "chain-user"], chainRequired);
    expect(text).toContain(`DLT chains:    none declared for ${ENTITY}`);
    expect(text).toContain("not ready to send SMS; missing:");
    expect(text).toContain(`dlt chains set --account chain-user --entity-id ${ENTITY}`);

    await cliOk(
      ["dlt", "chains", "set", "--account", "chain-user", "--entity-id", ENTITY, "--chain", "1702000000000000011"],
      chainRequired,
    );
    const declared = await cliOk(["accounts", "show", "chain-user"], chainRequired);
    expect(declared).toContain("DLT chains:    declared for every entity");
    expect(declared.trimEnd().endsWith("ready to send SMS")).toBe(true);
  });
});
