// Onboarding through the real executable: one `accounts create` makes an account whose first
// SMS a running gateway delivers; a bad option writes nothing; `accounts show` lists what an
// account lacks, and the commands it prints, run as printed, make it ready (the sender ID's
// `--approve` white-lists its DLT header too, decision 0151, unless `--no-dlt-header`).
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { cliOk, runCli, type ServerProcess, STACK_TRACE, startServer } from "../../helpers/cli.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";

// Every step is a process of its own (about a second of Node start-up each on a busy machine).
vi.setConfig({ testTimeout: 120_000 });

const ENTITY = "1101160000000000042";

/** Splits a printed command the way a POSIX shell would (plain words and '…' quoting is all it prints). */
function shellWords(command: string): string[] {
  const words: string[] = [];
  for (const match of command.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)) {
    words.push(match[1] !== undefined ? match[1].replace(/'\\''/g, "'") : match[2]!);
  }
  return words;
}

describeEachEngine("switchboard CLI: onboarding in one step", (engine) => {
  let db: TestDatabase;
  let env: Record<string, string>;
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    env = {
      DATABASE_URL: db.url,
      SQLITE_SYNCHRONOUS: "NORMAL",
      SIMULATOR_LATENCY_MS: "50",
      SIMULATOR_FAILURE_RATE: "0",
    };
  });
  afterAll(async () => {
    await server?.stop("SIGKILL");
    await db.drop();
  });

  it("creates an account ready to send, whose first SMS a running gateway delivers", async () => {
    const created = JSON.parse(
      await cliOk(
        [
          "accounts",
          "create",
          "--username",
          "acme",
          "--password",
          "a-long-password",
          "--sender",
          "ACME",
          "--dlt-entity",
          ENTITY,
          "--template",
          "Your OTP is {#var#}",
          "--dlt-template-id",
          "1107160000000000042",
          "--credits",
          "sms=1000,whatsapp=50",
          "--rate-limit",
          "0",
          "--json",
        ],
        env,
      ),
    );
    expect(created).toEqual({
      id: expect.any(Number),
      username: "acme",
      api_key: expect.stringMatching(/^sb_/),
      ready: true,
      missing: [],
      // What the readiness was judged by: DLT_CHAIN_REQUIRED off (decision 0169).
      readiness_judged_by: expect.objectContaining({ dlt_chain_required: false }),
    });
    const shown = await cliOk(["accounts", "show", "acme"], env);
    expect(shown).toContain("sender IDs:    ACME (approved)");
    expect(shown).toContain("DLT headers:   ACME");
    expect(shown).toContain(`DLT entities:  ${ENTITY}; a send that names none carries ${ENTITY}`);
    expect(shown).toContain("wallets:       sms 1000, international 0, whatsapp 50, email 0, voice 0");
    expect(shown.trimEnd().endsWith("ready to send SMS")).toBe(true);

    server = await startServer("start", env);
    const sent = await fetch(`${server.url}/api/v2/sms/send`, {
      method: "POST",
      headers: { authorization: `Bearer ${created.api_key}`, "content-type": "application/json" },
      body: JSON.stringify({ sender_id: "ACME", recipient: "9876543210", message: "Your OTP is 482913" }),
    });
    const body = (await sent.json()) as { data: { message_id: string } };
    expect(sent.status, JSON.stringify(body)).toBe(200);
    let status = "";
    for (let i = 0; i < 200 && status !== "delivered"; i++) {
      const report = await fetch(`${server.url}/api/v2/sms/status/${body.data.message_id}`, {
        headers: { authorization: `Bearer ${created.api_key}` },
      });
      status = ((await report.json()) as { data: { status: string } }).data.status;
      if (status !== "delivered") await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status).toBe("delivered");
    const promo = await fetch(
      `${server.url}/httpapi/send?${new URLSearchParams({
        username: "acme",
        password: "a-long-password",
        sender_id: "PROMOTIONAL",
        route: "P",
        phonenumber: "9876543210",
        message: "Sale today",
      })}`,
    );
    expect(await promo.text()).toMatch(new RegExp(`^${created.id}_\\d{8}_\\d+$`));
  });

  // Each case is its own process and must change nothing, so they run side by side. The
  // operator API's test goes through every field; these are the CLI's own paths.
  it.concurrent.for<[string, string[], RegExp]>([
    ["a bad sender ID", ["--sender", "ACME,!"], /^switchboard: A sender ID is 3 to 11 letters or digits/],
    [
      "a blank second template",
      ["--template", "Hello {#var#}", "--template", "  "],
      /^switchboard: Template content is 1 to 2000 characters and not blank/,
    ],
    [
      "more DLT template IDs than templates",
      ["--template", "Hello {#var#}", "--dlt-template-id", "1", "--dlt-template-id", "2"],
      /^switchboard: --dlt-template-id is given 2 times for 1 --template; give one per template, in order$/,
    ],
    ["a taken name in another case", ["--username", "ACME"], /^switchboard: An account named "ACME" already exists/],
  ])("refuses %s with one clear line, and writes nothing", async ([, options, message], { expect }) => {
    const username = `bad-${Math.random().toString(36).slice(2, 8)}`;
    const result = await runCli(
      [
        "accounts",
        "create",
        "--username",
        username,
        "--password",
        "a-long-password",
        "--sender",
        "GOODHD",
        "--dlt-entity",
        ENTITY,
        ...options,
      ],
      env,
    );
    expect(result.code).toBe(1);
    expect(result.stderr.split("\n")[0]).toMatch(message);
    expect(result.stderr).not.toMatch(STACK_TRACE);
    expect(result.stdout).toBe("");
    const accounts = (await db.store.db.selectFrom("accounts").select("username").execute()).map((a) => a.username);
    expect(accounts).not.toContain(username);
    // Nothing of the refused account, and nothing added to acme's.
    const senders = await db.store.db
      .selectFrom("sender_ids")
      .select("sender")
      .where("sender", "=", "GOODHD")
      .execute();
    expect(senders).toEqual([]);
  });

  it("shows what an account lacks, and the commands it prints make it ready when run as printed", async () => {
    await cliOk(["accounts", "create", "--username", "bare", "--password", "a-long-password"], env);
    const detail = JSON.parse(await cliOk(["accounts", "show", "bare", "--json"], env));
    expect(detail.ready).toBe(false);
    const text = await cliOk(["accounts", "show", "bare"], env);
    const placeholders: Record<string, string> = {
      "<SENDER>": "BAREHD",
      "<ENTITY_ID>": ENTITY,
      "<NAME>": "otp",
      "<TEXT with {#var#}>": "Code {#var#}",
      "<CREDITS>": "100",
    };
    for (const gap of detail.missing as { what: string; command: string }[]) {
      expect(text).toContain(`    ${gap.command}`);
      const words = shellWords(gap.command).map((word) => placeholders[word] ?? word);
      expect(words[0]).toBe("switchboard");
      await cliOk(words.slice(1), env);
    }
    // `sender-ids add --approve` white-listed BAREHD as the DLT header too (decision 0151), so
    // the commands as printed leave nothing missing: no second round for the header.
    const after = JSON.parse(await cliOk(["accounts", "show", "bare", "--json"], env));
    expect(after).toMatchObject({ ready: true, missing: [] });
    expect(after.registrations.dlt_headers).toEqual(["BAREHD"]);
  });

  it("leaves the DLT header to add when the printed sender-ids add runs with --no-dlt-header", async () => {
    await cliOk(["accounts", "create", "--username", "nohead", "--password", "a-long-password"], env);
    const fix = JSON.parse(await cliOk(["accounts", "show", "nohead", "--json"], env)).missing.find(
      (gap: { what: string }) => gap.what === "sender_id",
    );
    const words = shellWords(fix.command).map((word) => (word === "<SENDER>" ? "NOHEAD" : word));
    expect(await cliOk([...words.slice(1), "--no-dlt-header"], env)).toBe("sender ID NOHEAD for nohead: approved\n");
    const after = JSON.parse(await cliOk(["accounts", "show", "nohead", "--json"], env));
    expect(after.registrations.dlt_headers).toEqual([]);
    // An approved alphabetic sender on a scrubbing account without its header: show says so, and
    // its command, run as printed, white-lists it.
    const header = after.missing.find((gap: { what: string }) => gap.what === "dlt_header");
    expect(header?.command).toBe("switchboard dlt headers add --account nohead --header NOHEAD");
    await cliOk(shellWords(header.command).slice(1), env);
    const headers = await db.store.db
      .selectFrom("dlt_headers")
      .innerJoin("accounts", "accounts.id", "dlt_headers.account_id")
      .select(["dlt_headers.header", "dlt_headers.status"])
      .where("accounts.username", "=", "nohead")
      .execute();
    expect(headers).toEqual([{ header: "NOHEAD", status: "approved" }]);
  });
});
