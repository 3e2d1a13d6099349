// `switchboard carriers …` and `switchboard routes …` against a real database, and a running
// server (`switchboard start`) picking a route set by the CLI up without a restart.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { cliOk, runCli, STACK_TRACE } from "../../helpers/cli.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";

vi.setConfig({ testTimeout: 120_000 });

describeEachEngine("switchboard CLI: carriers and routes", (engine) => {
  let db: TestDatabase;
  let env: Record<string, string>;
  let dir: string;

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    env = { DATABASE_URL: db.url, SQLITE_SYNCHRONOUS: "NORMAL", SB_CLI_SMSC_PASSWORD: "s3cret" };
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-cli-carriers-"));
  });
  afterAll(async () => {
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  };

  it("adds, shows, replaces, disables and removes connectors, sets and removes routes", async () => {
    const definition = write(
      "smsc.yaml",
      "name: cli-smsc\ntype: smpp\nhost: 127.0.0.1\nport: 2775\nsystem_id: acme\npassword: ${SB_CLI_SMSC_PASSWORD}\nconnections: 2\n",
    );
    expect(await cliOk(["carriers", "add", "--file", definition], env)).toBe("added smpp connector cli-smsc\n");
    expect(await cliOk(["carriers", "add", "--file", definition], env)).toBe("replaced smpp connector cli-smsc\n");
    const shown = JSON.parse(await cliOk(["carriers", "show", "cli-smsc", "--json"], env));
    expect(shown).toMatchObject({
      name: "cli-smsc",
      type: "smpp",
      enabled: true,
      definition: { password: "********", connections: 2 },
    });
    expect(await cliOk(["carriers", "list"], env)).toBe(
      "NAME      TYPE  STATE    SOURCE\ncli-smsc  smpp  enabled  api\n",
    );

    expect(
      await cliOk(["routes", "set", "--route", "T", "--prefix", "91", "--connectors", "cli-smsc:3,simulator:0"], env),
    ).toBe("added route T/91\n");
    expect(await cliOk(["routes", "list"], env)).toBe(
      "ROUTE  PREFIX  STRATEGY  CONNECTORS\nT      91      weighted  cli-smsc:3,simulator:0\n",
    );

    // Refusals say what is wrong, exit 1, and print no stack trace.
    const refusals: Array<[string[], RegExp]> = [
      [["routes", "set", "--route", "T", "--connectors", "ghost"], /no connector named ghost/],
      [["routes", "set", "--route", "Q", "--connectors", "cli-smsc"], /route/],
      [["routes", "set", "--route", "T", "--connectors", "Bad Name"], /name or name:weight/],
      [["carriers", "remove", "cli-smsc"], /used by route\(s\) T\/91/],
      [["carriers", "show", "nobody"], /No connector named nobody/],
      [["carriers", "add", "--file", write("bad.json", '{"name":"x","type":"smpp"}')], /Invalid smpp connector/],
      [["carriers", "add", "--file", write("env.yaml", "password: ${SB_UNSET_FOR_TEST}\n")], /SB_UNSET_FOR_TEST/],
    ];
    for (const [args, problem] of refusals) {
      const result = await runCli(args, env);
      expect(result.code, args.join(" ")).not.toBe(0);
      expect(result.stderr, args.join(" ")).toMatch(problem);
      expect(result.stderr).not.toMatch(STACK_TRACE);
    }

    expect(await cliOk(["carriers", "disable", "cli-smsc"], env)).toBe("cli-smsc disabled\n");
    expect(await cliOk(["carriers", "list"], env)).toBe(
      "NAME      TYPE  STATE     SOURCE\ncli-smsc  smpp  disabled  api\n",
    );
    expect(await cliOk(["routes", "remove", "--route", "T", "--prefix", "91"], env)).toBe("removed route T/91\n");
    expect(await cliOk(["carriers", "remove", "cli-smsc"], env)).toBe("removed cli-smsc\n");
    expect(await cliOk(["carriers", "list"], env)).toBe("no connectors\n");
    expect(await cliOk(["routes", "list"], env)).toBe("no routes: SMS go to the simulator\n");
  });

  it("replaces an adaptive route's connectors keeping its strategy and scoring, and sets its explore and floor shares", async () => {
    const set = (...args: string[]) =>
      cliOk(["routes", "set", "--route", "P", "--prefix", "91", ...args, "--json"], env);
    const adaptive = JSON.parse(
      await set(
        "--connectors",
        "simulator",
        "--strategy",
        "adaptive",
        "--scoring",
        "delivery:0.8,latency:0.1,cost:0.1",
        "--explore-share",
        "0.3",
        "--floor-share",
        "0.05",
      ),
    );
    const kept = {
      strategy: "adaptive",
      scoring: { delivery: 0.8, latency: 0.1, cost: 0.1 },
      explore_share: 0.3,
      floor_share: 0.05,
    };
    expect(adaptive).toMatchObject(kept);
    // Only the connectors given: the rest of the route as it was (it fell back to weighted).
    const replaced = JSON.parse(await set("--connectors", "simulator:2"));
    expect(replaced).toMatchObject({ ...kept, connectors: [{ name: "simulator", weight: 2 }] });
    expect(JSON.parse(await set("--connectors", "simulator", "--explore-share", "0.1"))).toMatchObject({
      ...kept,
      explore_share: 0.1,
    });
    // A strategy given replaces it, without the adaptive route's scoring.
    const weighted = JSON.parse(await set("--connectors", "simulator", "--strategy", "weighted"));
    expect(weighted.strategy).toBe("weighted");
    expect(weighted).not.toHaveProperty("scoring");
    const refused = await runCli(
      ["routes", "set", "--route", "P", "--connectors", "simulator", "--explore-share", "x"],
      env,
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/--explore-share/);
    expect(refused.stderr).not.toMatch(STACK_TRACE);
    expect(await cliOk(["routes", "remove", "--route", "P", "--prefix", "91"], env)).toBe("removed route P/91\n");
  });

  it("applies a carriers file as the start does", async () => {
    const file = write(
      "carriers.json",
      JSON.stringify({
        connectors: [{ name: "file-smsc", type: "smpp", host: "127.0.0.1", port: 2775, system_id: "a", password: "b" }],
        routes: [{ route: "*", prefix: "", connectors: [{ name: "file-smsc" }] }],
      }),
    );
    expect(await cliOk(["carriers", "apply", "--file", file], env)).toBe("applied 1 connector(s) and 1 route(s)\n");
    expect(await cliOk(["carriers", "list"], env)).toBe(
      "NAME       TYPE  STATE    SOURCE\nfile-smsc  smpp  enabled  file\n",
    );
    expect(await cliOk(["routes", "list"], env)).toBe(
      "ROUTE  PREFIX  STRATEGY  CONNECTORS\n*      (any)   weighted  file-smsc:1\n",
    );
    expect(await cliOk(["carriers", "health"], env)).toBe("no worker is running connectors\n");
  });

  it("shows and replaces a connector's error codes, refusing a bad table", async () => {
    const definition = write(
      "codes.json",
      JSON.stringify({
        name: "codes-smsc",
        type: "smpp",
        host: "127.0.0.1",
        port: 2775,
        system_id: "a",
        password: "p",
      }),
    );
    await cliOk(["carriers", "add", "--file", definition], env);
    const table = write("codes.yaml", '"633": { reason: dlt_scrubbing_failed, description: "Scrubbing (ours)" }\n');
    expect(await cliOk(["carriers", "set-error-codes", "--connector", "codes-smsc", "--file", table], env)).toBe(
      "codes-smsc maps 1 code(s) of its own over the default table\n",
    );
    const shown = await cliOk(["carriers", "show-error-codes", "--connector", "codes-smsc"], env);
    expect(shown).toMatch(/^633\s+dlt_scrubbing_failed\s+connector\s+Scrubbing \(ours\)$/m);
    expect(shown).toMatch(/^621\s+dlt_header_inactive\s+default\s+HEADER_INACTIVE/m);
    const bad = write("bad-codes.json", '{ "633": { "reason": "nope", "description": "x" } }');
    const refused = await runCli(["carriers", "set-error-codes", "--connector", "codes-smsc", "--file", bad], env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/error_codes\.633\.reason must be a code of the error catalogue/);
    expect(refused.stderr).not.toMatch(STACK_TRACE);
    await cliOk(["carriers", "remove", "codes-smsc"], env);
  });

  it("sets and removes one error code, and chooses and removes a reason's refund, refusing in words", async () => {
    const definition = write(
      "one-code.json",
      JSON.stringify({ name: "one-code", type: "smpp", host: "127.0.0.1", port: 2775, system_id: "a", password: "p" }),
    );
    await cliOk(["carriers", "add", "--file", definition], env);
    const set = ["carriers", "set-error-code", "--connector", "one-code", "--code", "E:17"];
    expect(
      await cliOk([...set, "--reason", "dlt_entity_blacklisted", "--description", "Entity blacklisted"], env),
    ).toBe("one-code maps E:17 to dlt_entity_blacklisted\n");
    expect(await cliOk(["carriers", "show-error-codes", "--connector", "one-code"], env)).toMatch(
      /^E:17\s+dlt_entity_blacklisted\s+connector\s+Entity blacklisted$/m,
    );
    const badReason = await runCli([...set, "--reason", "nope", "--description", "x"], env);
    expect(badReason.code).not.toBe(0);
    expect(badReason.stderr).toMatch(/reason must be a code of the error catalogue/);
    expect(badReason.stderr).not.toMatch(STACK_TRACE);
    expect(await cliOk(["carriers", "remove-error-code", "--connector", "one-code", "--code", "E:17"], env)).toBe(
      "one-code no longer maps E:17 itself\n",
    );
    const notOwn = await runCli(["carriers", "remove-error-code", "--connector", "one-code", "--code", "633"], env);
    expect(notOwn.code).not.toBe(0);
    expect(notOwn.stderr).toMatch(/does not map the code 633 itself \(the default table does/);

    expect(await cliOk(["carriers", "show-refunds"], env)).toMatch(/^dlt_template_mismatch\s+no\s+default$/m);
    expect(await cliOk(["carriers", "set-refund", "--reason", "dlt_template_mismatch"], env)).toMatch(
      /^dlt_template_mismatch\s+yes\s+operator$/m,
    );
    expect(await cliOk(["carriers", "set-refund", "--reason", "dlt_header_inactive", "--no-refund"], env)).toMatch(
      /^dlt_header_inactive\s+no\s+operator$/m,
    );
    const policy = JSON.parse(await cliOk(["carriers", "show-refunds", "--json"], env));
    expect(policy.reasons).toContainEqual(expect.objectContaining({ reason: "dlt_template_mismatch", refund: true }));
    expect(await cliOk(["carriers", "remove-refund", "--reason", "dlt_template_mismatch"], env)).toMatch(
      /^dlt_template_mismatch\s+no\s+default$/m,
    );
    const again = await runCli(["carriers", "remove-refund", "--reason", "dlt_template_mismatch"], env);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/no choice of the operator for dlt_template_mismatch to remove/);
    const unknown = await runCli(["carriers", "set-refund", "--reason", "dlt_nothing"], env);
    expect(unknown.stderr).toMatch(/"dlt_nothing" is not a reason of the error catalogue/);
    expect(unknown.stderr).not.toMatch(STACK_TRACE);
    await cliOk(["carriers", "remove-refund", "--reason", "dlt_header_inactive"], env);
    await cliOk(["carriers", "remove", "one-code"], env);
  });
});
