import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { cliOk, runCli, type ServerProcess, STACK_TRACE, startServer } from "../../helpers/cli.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";

// Every step spawns a CLI process (a second of Node start-up each); on two busy cores a test
// of several steps can pass 30 s without anything being wrong.
vi.setConfig({ testTimeout: 120_000 });

describeEachEngine("switchboard CLI: templates, DLT, DND, SMS switches", (engine) => {
  let db: TestDatabase;
  let env: Record<string, string>;
  let dir: string;
  let apiKey: string;
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    env = { DATABASE_URL: db.url, SQLITE_SYNCHRONOUS: "NORMAL" };
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-cli-rules-"));
    const created = JSON.parse(
      await cliOk(
        [
          "accounts",
          "create",
          "--username",
          "rules-user",
          "--password",
          "cli-password",
          "--credits",
          "sms=100",
          "--json",
        ],
        env,
      ),
    );
    apiKey = created.api_key;
  });
  afterAll(async () => {
    await server?.stop("SIGKILL");
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const csvFile = (name: string, text: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  };

  it("adds templates pending or approved, approves, rejects and lists them", async () => {
    const approved = JSON.parse(
      await cliOk(
        [
          "templates",
          "add",
          "--account",
          "rules-user",
          "--name",
          "otp",
          "--content",
          "Your code is {#var#}. It expires in {#var#} minutes.",
          "--dlt-template-id",
          "1107160000000000002",
          "--entity-id",
          "1101160000000000002",
          "--sender",
          "rulein",
          "--approve",
          "--json",
        ],
        env,
      ),
    );
    expect(approved).toMatchObject({
      id: expect.any(Number),
      account: "rules-user",
      name: "otp",
      dlt_template_id: "1107160000000000002",
      entity_id: "1101160000000000002",
      sender_id: "RULEIN",
      status: "approved",
    });
    const pending = await cliOk(
      ["templates", "add", "--account", "rules-user", "--name", "promo", "--content", "Sale: {#var#} off"],
      env,
    );
    expect(pending).toMatch(/^template (\d+) "promo" for rules-user: pending\n$/);
    const pendingId = /^template (\d+)/.exec(pending)?.[1] ?? "";
    expect(await cliOk(["templates", "reject", "--id", pendingId], env)).toBe(
      `rejected template ${pendingId} "promo" of account rules-user\n`,
    );
    // The id alone picks its owner: --account refuses another account's template and says so.
    await cliOk(["accounts", "create", "--username", "rules-other", "--password", "cli-password"], env);
    const elsewhere = await runCli(["templates", "approve", "--id", pendingId, "--account", "rules-other"], env);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain(`No template with id ${pendingId} in account rules-other.`);
    expect(await cliOk(["templates", "approve", "--id", pendingId, "--account", "rules-user"], env)).toBe(
      `approved template ${pendingId} "promo" of account rules-user\n`,
    );
    await cliOk(["templates", "reject", "--id", pendingId], env);

    const listed = JSON.parse(await cliOk(["templates", "list", "--account", "rules-user", "--json"], env));
    expect(listed.map((t: { name: string; status: string }) => `${t.name}:${t.status}`)).toEqual([
      "otp:approved",
      "promo:rejected",
    ]);
    const text = await cliOk(["templates", "list", "--account", "rules-user", "--status", "approved"], env);
    // A table under a header row, each column as wide as its widest cell.
    expect(text).toBe(
      `${"ID".padEnd(String(approved.id).length)}  STATUS    DLT TEMPLATE ID      NAME  CONTENT\n` +
        `${String(approved.id).padEnd(2)}  approved  1107160000000000002  otp   Your code is {#var#}. It expires in {#var#} minutes.\n`,
    );
  });

  it("white-lists DLT entity IDs and headers, lists and removes them", async () => {
    expect(
      await cliOk(["dlt", "entities", "add", "--account", "rules-user", "--entity-id", "1101160000000000002"], env),
    ).toBe("DLT entity ID 1101160000000000002 for rules-user: approved\n");
    expect(await cliOk(["dlt", "headers", "add", "--account", "rules-user", "--header", "rulein"], env)).toBe(
      "DLT header RULEIN for rules-user: approved\n",
    );
    await cliOk(["dlt", "headers", "add", "--account", "rules-user", "--header", "OLDHDR"], env);
    expect(await cliOk(["dlt", "headers", "remove", "--account", "rules-user", "--header", "oldhdr"], env)).toBe(
      "removed DLT header OLDHDR of rules-user\n",
    );
    expect(await cliOk(["dlt", "list", "--account", "rules-user"], env)).toBe(
      "entities: 1101160000000000002\nheaders:  RULEIN\n",
    );
    const json = JSON.parse(await cliOk(["dlt", "list", "--account", "rules-user", "--json"], env));
    expect(json).toEqual({
      account: "rules-user",
      entities: [expect.objectContaining({ entity_id: "1101160000000000002", status: "approved" })],
      headers: [expect.objectContaining({ header: "RULEIN", status: "approved" })],
    });
  });

  it("white-lists an entity's links and callback numbers, lists and removes them, refusing bad ones", async () => {
    const entity = "1101160000000000007";
    await cliOk(["dlt", "entities", "add", "--account", "rules-user", "--entity-id", entity], env);
    const base = ["--account", "rules-user", "--entity-id", entity];
    expect(await cliOk(["dlt", "urls", "add", ...base, "--url", "https://www.Example.com/app/"], env)).toBe(
      `example.com/app/ for rules-user, entity ${entity}: approved\n`,
    );
    expect(await cliOk(["dlt", "callbacks", "add", ...base, "--number", "+91 98765 43210"], env)).toBe(
      `9876543210 for rules-user, entity ${entity}: approved\n`,
    );
    const listed = JSON.parse(await cliOk(["dlt", "urls", "list", "--account", "rules-user", "--json"], env));
    expect(listed).toEqual([
      expect.objectContaining({ entity_id: entity, url: "example.com/app/", status: "approved" }),
    ]);
    expect(await cliOk(["dlt", "callbacks", "list", ...base], env)).toMatch(/9876543210\s+approved/);
    for (const [args, message] of [
      [["dlt", "urls", "add", ...base, "--url", "not a url"], /is not a URL DLT can white-list/],
      [["dlt", "callbacks", "add", ...base, "--number", "4821"], /is not a callback number/],
      [
        ["dlt", "urls", "add", "--account", "rules-user", "--entity-id", "1101999999999999999", "--url", "a.com"],
        /is not registered for the account rules-user/,
      ],
    ] as const) {
      const result = await runCli([...args], env);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toMatch(STACK_TRACE);
    }
    expect(await cliOk(["dlt", "urls", "remove", ...base, "--url", "example.com/app/"], env)).toBe(
      `removed example.com/app/ of rules-user, entity ${entity}\n`,
    );
    expect(await cliOk(["dlt", "urls", "list", "--account", "rules-user"], env)).toBe("none\n");
    // Removing the entity removes its lists.
    await cliOk(["dlt", "entities", "remove", "--account", "rules-user", "--entity-id", entity], env);
    expect(await cliOk(["dlt", "callbacks", "list", "--account", "rules-user"], env)).toBe("none\n");
  });

  it("declares an entity's telemarketer chain (DLT_TM_ID appended), lists and clears it, refusing bad ones", async () => {
    const entity = "1101160000000000008";
    const chainEnv = { ...env, DLT_TM_ID: "1702000000000000099" };
    await cliOk(["dlt", "entities", "add", "--account", "rules-user", "--entity-id", entity], env);
    const base = ["--account", "rules-user", "--entity-id", entity];
    expect(await cliOk(["dlt", "chains", "set", ...base, "--chain", "1702000000000000011"], chainEnv)).toBe(
      `rules-user, entity ${entity}: 1702000000000000011 > 1702000000000000099\n`,
    );
    const listed = JSON.parse(await cliOk(["dlt", "chains", "list", "--account", "rules-user", "--json"], env));
    expect(listed).toContainEqual({
      entity_id: entity,
      status: "approved",
      tm_chain: ["1702000000000000011", "1702000000000000099"],
    });
    expect(await cliOk(["dlt", "chains", "list", "--account", "rules-user"], env)).toMatch(
      new RegExp(`${entity}\\s+approved\\s+1702000000000000011 > 1702000000000000099`),
    );
    for (const [args, message] of [
      [["dlt", "chains", "set", ...base, "--chain", "17-02"], /"17-02" is not a telemarketer ID/],
      [["dlt", "chains", "set", ...base, "--chain", "1702000000000000099,1702000000000000011"], /comes last/],
    ] as const) {
      const result = await runCli([...args], chainEnv);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toMatch(STACK_TRACE);
    }
    // Set where DLT_TM_ID is not: stored as given, shown and carried with the gateway's own last.
    expect(await cliOk(["dlt", "chains", "set", ...base, "--chain", "1702000000000000012"], env)).toBe(
      `rules-user, entity ${entity}: 1702000000000000012 (DLT_TM_ID is not set here: the gateway adds its own last)\n`,
    );
    expect(
      JSON.parse(await cliOk(["dlt", "chains", "list", "--account", "rules-user", "--json"], chainEnv)),
    ).toContainEqual({
      entity_id: entity,
      status: "approved",
      tm_chain: ["1702000000000000012", "1702000000000000099"],
    });
    expect(await cliOk(["dlt", "chains", "clear", ...base], env)).toBe(
      `cleared the chain of rules-user, entity ${entity}\n`,
    );
    const again = await runCli(["dlt", "chains", "clear", ...base], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/has no declared telemarketer chain/);
    await cliOk(["dlt", "entities", "remove", ...base], env);
  });

  it("sets the default DLT entity among several, and clears it", async () => {
    const second = await cliOk(
      ["dlt", "entities", "add", "--account", "rules-user", "--entity-id", "1101160000000000003"],
      env,
    );
    expect(second.split("\n")[1]).toBe(
      "note: 2 DLT entities are white-listed (1101160000000000002, 1101160000000000003) and none is the default: " +
        "a send that names none is refused (-31). Set one: switchboard accounts set --username rules-user --dlt-entity <ENTITY_ID>",
    );
    const set = (...options: string[]) =>
      cliOk(["accounts", "set", "--username", "rules-user", ...options, "--json"], env).then(JSON.parse);
    expect(await set("--dlt-entity", "1101160000000000003")).toMatchObject({
      default_dlt_entity_id: "1101160000000000003",
    });
    expect(await set("--no-dlt-entity")).toMatchObject({ default_dlt_entity_id: null });
    await cliOk(["dlt", "entities", "remove", "--account", "rules-user", "--entity-id", "1101160000000000003"], env);
  });

  it("imports a DND file, reporting added, duplicates and invalid lines, and replaces it on request", async () => {
    const file = csvFile(
      "dnd.csv",
      '\uFEFFmobile,name\r\n9876543210,A\r\n"+91 98765 43211",B\r\n\r\n09876543212\r\n9876543210\r\nabc\r\n12345\r\n',
    );
    expect(await cliOk(["dnd", "import", file], env)).toBe(
      "added 3, duplicates 1, invalid 2\n  line 7: abc\n  line 8: 12345\n",
    );
    expect(JSON.parse(await cliOk(["dnd", "import", file, "--json"], env))).toEqual({
      added: 0,
      duplicates: 4,
      invalid_count: 2,
      invalid: [
        { line: 7, value: "abc" },
        { line: 8, value: "12345" },
      ],
    });
    expect(await cliOk(["dnd", "count"], env)).toBe("3\n");
    expect(await cliOk(["dnd", "check", "+919876543211"], env)).toBe("9876543211: in the DND registry\n");
    expect(await cliOk(["dnd", "add", "9876543219", "9876543210"], env)).toBe("added 1, duplicates 1\n");
    expect(await cliOk(["dnd", "remove", "9876543219", "9876543218"], env)).toBe("removed 1\n");
    expect(JSON.parse(await cliOk(["dnd", "check", "9876543219", "--json"], env))).toEqual({
      number: "9876543219",
      dnd: false,
    });

    const many = csvFile("many.csv", `${Array.from({ length: 30 }, (_, i) => `bad${i}`).join("\n")}\n7000000001\n`);
    const summary = await cliOk(["dnd", "import", many, "--replace"], env);
    expect(summary.split("\n")[0]).toBe("added 1, duplicates 0, invalid 30");
    expect(summary).toContain("  line 20: bad19\n  … 10 more\n");
    expect(JSON.parse(await cliOk(["dnd", "count", "--json"], env))).toEqual({ count: 1 });
  });

  it("sets DLT scrubbing, the promotional sender and the routes of an account", async () => {
    const set = JSON.parse(
      await cliOk(
        [
          "accounts",
          "set",
          "--username",
          "rules-user",
          "--dlt-scrubbing",
          "off",
          "--dlt-matching",
          "lenient",
          "--promo-sender",
          "on",
          "--routes",
          "t,PS,I",
          "--flood-limit",
          "500",
          "--international",
          "on",
          "--json",
        ],
        env,
      ),
    );
    expect(set).toMatchObject({
      dlt_scrubbing: false,
      dlt_matching: "lenient",
      promo_sender_enabled: true,
      routes: ["T", "PS", "I"],
      flood_limit: 500,
      international_enabled: true,
    });
    const back = JSON.parse(
      await cliOk(
        [
          "accounts",
          "set",
          "--username",
          "rules-user",
          "--dlt-scrubbing",
          "on",
          "--dlt-matching",
          "STRICT",
          "--routes",
          "T,P",
          "--json",
        ],
        env,
      ),
    );
    expect(back).toMatchObject({
      dlt_scrubbing: true,
      dlt_matching: "strict",
      promo_sender_enabled: true,
      routes: ["T", "P"],
    });
  });

  it("lets a registered template through a running server, and refuses other text", async () => {
    await cliOk(["sender-ids", "add", "--account", "rules-user", "--sender", "RULEIN", "--approve"], env);
    server = await startServer("api", env);
    const send = (message: string) =>
      fetch(`${server?.url}/api/v2/sms/send`, {
        method: "POST",
        headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ sender_id: "RULEIN", recipient: "9876500001", message }),
      });
    const matching = await send("Your code is 4821. It expires in 10 minutes.");
    expect(matching.status, await matching.clone().text()).toBe(200);
    const other = await send("Your code is 4821. Call us for a loan.");
    expect(other.status).toBe(422);
  });

  // Each case is its own process and changes nothing, so they run side by side.
  it.concurrent.for<[string, string[], RegExp]>([
    [
      "a DLT matching other than strict or lenient",
      ["accounts", "set", "--username", "rules-user", "--dlt-matching", "loose"],
      /^switchboard: DLT matching is strict or lenient, not "loose"\.$/,
    ],
    [
      "a template for an unknown account",
      ["templates", "add", "--account", "nobody-here", "--name", "n", "--content", "c"],
      /^switchboard: No account named "nobody-here"\.$/,
    ],
    [
      "a blank template",
      ["templates", "add", "--account", "rules-user", "--name", "n", "--content", "   "],
      /^switchboard: Template content is 1 to 2000 characters and not blank/,
    ],
    [
      "a template with a bad DLT template ID",
      ["templates", "add", "--account", "rules-user", "--name", "n", "--content", "c", "--dlt-template-id", "1-2"],
      /^switchboard: A DLT template ID is 1 to 30 letters or digits/,
    ],
    [
      "an unknown template id",
      ["templates", "approve", "--id", "987654"],
      /^switchboard: No template with id 987654\.$/,
    ],
    [
      "a template id that is not a number",
      ["templates", "reject", "--id", "x1"],
      /argument 'x1' is invalid\. use a whole number/,
    ],
    [
      "an unknown template status",
      ["templates", "list", "--account", "rules-user", "--status", "maybe"],
      /argument 'maybe' is invalid\. Allowed choices are pending, approved, rejected/,
    ],
    [
      "a bad entity ID",
      ["dlt", "entities", "add", "--account", "rules-user", "--entity-id", "1101-16"],
      /^switchboard: A DLT entity ID is 1 to 30 letters or digits/,
    ],
    [
      "a header of two letters",
      ["dlt", "headers", "add", "--account", "rules-user", "--header", "AB"],
      /^switchboard: A DLT header is 3 to 11 letters or digits/,
    ],
    [
      "removing a header that is not registered",
      ["dlt", "headers", "remove", "--account", "rules-user", "--header", "NOPEIN"],
      /^switchboard: DLT header "NOPEIN" is not registered for rules-user\.$/,
    ],
    [
      "a missing DND file",
      ["dnd", "import", "/nonexistent/dnd.csv"],
      /^switchboard: cannot read \/nonexistent\/dnd\.csv: no such file$/,
    ],
    ["a directory as the DND file", ["dnd", "import", os.tmpdir()], /^switchboard: cannot read .*: .* is not a file$/],
    [
      "a bad DND number",
      ["dnd", "add", "9876543210", "12345"],
      /^switchboard: Not a 10-digit Indian mobile number: 12345\.$/,
    ],
    ["a bad number to check", ["dnd", "check", "abc"], /^switchboard: "abc" is not a 10-digit Indian mobile number\.$/],
    ["no numbers to add", ["dnd", "add"], /missing required argument 'numbers'/],
    [
      "an unknown route",
      ["accounts", "set", "--username", "rules-user", "--routes", "T,X"],
      /^switchboard: Unknown route "X"; routes are T, P, PS, I\.$/,
    ],
    [
      "a default DLT entity that is not white-listed",
      ["accounts", "set", "--username", "rules-user", "--dlt-entity", "1101160000000000777"],
      /^switchboard: DLT entity ID 1101160000000000777 is not white-listed for the account rules-user; white-list it first: `switchboard dlt entities add --account rules-user --entity-id 1101160000000000777`\.$/,
    ],
    [
      "a scrubbing switch that is not on or off",
      ["accounts", "set", "--username", "rules-user", "--dlt-scrubbing", "maybe"],
      /argument 'maybe' is invalid\. use on or off/,
    ],
  ])("refuses %s with a non-zero exit and one clear line, never a stack trace", async ([, args, message], {
    expect,
  }) => {
    const result = await runCli(args, env);
    expect(result.code).not.toBe(0);
    expect(result.stderr.split("\n")[0]).toMatch(message);
    expect(result.stderr).not.toMatch(STACK_TRACE);
    expect(result.stdout).toBe("");
  });

  it("stops a DND import at an unclosed quote with the line number, adding none of the file", async () => {
    const file = csvFile("broken.csv", '9876543230\n9876543231\n"9876543232\n9876543233\n');
    const result = await runCli(["dnd", "import", file], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^switchboard: The CSV is malformed at line 3: a quote opens a value and is never closed; .* No number was added\./,
    );
    expect(result.stderr).not.toMatch(STACK_TRACE);
  });
});
