// The price card commands against a server in another process, on both engines: a CSV with a bad
// line is refused with its number and nothing imported; a card imported and set on an account by
// the CLI reaches the running server's prices (by PostgreSQL's NOTIFY, or the version every
// process reads at most every 2 s: SQLite's other processes), and so does a card imported again.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { cliOk, runCli, type ServerProcess, STACK_TRACE, startServer } from "../../helpers/cli.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";

vi.setConfig({ testTimeout: 120_000 });

describeEachEngine("switchboard CLI: price cards", (engine) => {
  let db: TestDatabase;
  let env: Record<string, string>;
  let dir: string;
  let apiKey: string;
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    env = { DATABASE_URL: db.url, SQLITE_SYNCHRONOUS: "NORMAL" };
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-cli-prices-"));
    const created = JSON.parse(
      await cliOk(
        ["accounts", "create", "--username", "priced", "--password", "cli-password", "--credits", "sms=100", "--json"],
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

  const csv = (name: string, text: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  };
  const quote = async () => {
    const response = await fetch(`${server?.url}/api/v2/pricing?recipient=9876543210`, {
      headers: { "x-api-key": apiKey },
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { data: { price: number } }).data.price;
  };
  const until = async (want: number) => {
    const deadline = Date.now() + 15_000;
    let price = await quote();
    while (price !== want && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      price = await quote();
    }
    return price;
  };

  it("refuses a bad line with its number, imports a good file, and the running server follows", async () => {
    const bad = await runCli(
      [
        "prices",
        "import",
        "--card",
        "retail",
        "--file",
        csv("bad.csv", "channel,route,prefix,price\nsms,*,91,0.2\nsms,*,9198,lots\n"),
      ],
      env,
    );
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("Line 3: price must be a number");
    expect(bad.stderr).toContain("nothing imported");
    expect(bad.stderr).not.toMatch(STACK_TRACE);
    const missing = await runCli(["prices", "show", "--card", "retail"], env);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('No price card named "retail"');

    // A header and no rows would empty the card: refused unless asked for.
    const headerOnly = csv("header-only.csv", "channel,route,prefix,price\n");
    const empty = await runCli(["prices", "import", "--card", "retail", "--file", headerOnly], env);
    expect(empty.code).not.toBe(0);
    expect(empty.stderr).toContain("no rows after its header");
    expect(empty.stderr).toContain("--allow-empty");
    expect(empty.stderr).not.toMatch(STACK_TRACE);
    expect(await cliOk(["prices", "import", "--card", "retail", "--file", headerOnly, "--allow-empty"], env)).toContain(
      "imported 0 rows into retail",
    );
    const file = csv("good.csv", "channel,route,prefix,price\nsms,*,91,0.2\nsms,*,9198,0.25\nsms,*,*,1.5\n");
    expect(await cliOk(["prices", "import", "--card", "retail", "--file", file], env)).toContain(
      "imported 3 rows into retail",
    );
    const shown = JSON.parse(await cliOk(["prices", "show", "--card", "retail", "--json"], env));
    // In the API's order (channel, prefix, route, effective_from), whatever the file's.
    expect(shown.rows.map((r: { prefix: string }) => r.prefix)).toEqual(["*", "91", "9198"]);
    expect(shown.rows[2]).toEqual({ channel: "sms", route: "*", prefix: "9198", price: 0.25, effective_from: null });
    const unknown = await runCli(["accounts", "set", "--username", "priced", "--price-card", "nosuch"], env);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('No price card named "nosuch"');

    server = await startServer("api", env);
    expect(await quote()).toBe(1);
    await cliOk(["accounts", "set", "--username", "priced", "--price-card", "retail"], env);
    expect(await until(0.25)).toBe(0.25);
    await cliOk(
      [
        "prices",
        "import",
        "--card",
        "retail",
        "--file",
        csv("again.csv", "channel,route,prefix,price\nsms,*,9198,0.3\n"),
      ],
      env,
    );
    expect(await until(0.3)).toBe(0.3);
    const listed = JSON.parse(await cliOk(["prices", "list", "--json"], env));
    expect(listed).toEqual([
      { name: "default", rows: 0, accounts: 0, updated_at: null },
      { name: "retail", rows: 1, accounts: 1, updated_at: expect.any(String) },
    ]);
  });
});
