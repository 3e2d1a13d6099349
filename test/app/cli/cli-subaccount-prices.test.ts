// The operator's price for a sub-account from the command line, on both engines (decision 0165,
// operator audit O1, O3, O9): `accounts set --price-card` holds a sub-account's card to its
// parent's price (refused with the unit, nothing changed, no stack trace) and clears its markup;
// `--no-price-card` puts it back on its parent's price; `audit list` records what it was and is
// priced by, and nothing for a change to what it is; `prices import` refuses a prefix that starts
// with 0, naming the line, and imports nothing.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { cliOk, runCli, STACK_TRACE } from "../../helpers/cli.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";

vi.setConfig({ testTimeout: 120_000 });

describeEachEngine("switchboard CLI: a sub-account's price card", (engine) => {
  let db: TestDatabase;
  let env: Record<string, string>;
  let dir: string;

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    env = { DATABASE_URL: db.url, SQLITE_SYNCHRONOUS: "NORMAL" };
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-cli-sub-prices-"));
  });
  afterAll(async () => {
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const file = (name: string, text: string) => {
    const at = path.join(dir, name);
    fs.writeFileSync(at, text);
    return at;
  };
  const show = async (username: string) => JSON.parse(await cliOk(["accounts", "show", username, "--json"], env));

  it("holds a sub-account's card to its parent's price, logs the true change, and refuses a 0 prefix", async () => {
    const cards = {
      cost: "sms,*,*,0.5\nvoice,V,*,1.5",
      cheap: "sms,*,*,0.6",
      fine: "sms,*,*,0.6\nvoice,*,*,2",
    };
    for (const [card, rows] of Object.entries(cards)) {
      const csv = file(`${card}.csv`, `channel,route,prefix,price\n${rows}\n`);
      await cliOk(["prices", "import", "--card", card, "--file", csv], env);
    }
    await cliOk(["accounts", "create", "--username", "reseller", "--password", "cli-password"], env);
    await cliOk(["accounts", "set", "--username", "reseller", "--price-card", "cost"], env);
    const create = ["accounts", "create", "--username", "shop", "--password", "cli-password", "--parent", "reseller"];
    await cliOk([...create, "--markup", "50"], env);

    const below = await runCli(["accounts", "set", "--username", "shop", "--price-card", "cheap"], env);
    expect(below.code).not.toBe(0);
    expect(below.stderr).toContain(
      'The price card "cheap" prices a voice unit on route V to numbers no other prefix names (prefix *) at 1, below its parent reseller\'s price there (1.5)',
    );
    expect(below.stderr).not.toMatch(STACK_TRACE);
    expect(await show("shop")).toMatchObject({ price_card: "parent+50%", markup_percent: 50 });
    await cliOk(["accounts", "set", "--username", "shop", "--no-price-card"], env);

    await cliOk(["accounts", "set", "--username", "shop", "--price-card", "FINE"], env);
    expect(await show("shop")).toMatchObject({ price_card: "fine", markup_percent: null });
    await cliOk(["accounts", "set", "--username", "shop", "--price-card", "fine"], env);
    await cliOk(["accounts", "set", "--username", "shop", "--no-price-card"], env);
    expect(await show("shop")).toMatchObject({ price_card: "parent+0%", markup_percent: 0 });
    const log = JSON.parse(
      await cliOk(["audit", "list", "--account", "shop", "--action", "account.price_card", "--json"], env),
    );
    expect(log.data.map((e: { before: unknown; after: unknown }) => [e.before, e.after])).toEqual([
      [
        { price_card: "fine", markup_percent: null },
        { price_card: "parent+0%", markup_percent: 0 },
      ],
      [
        { price_card: "parent+50%", markup_percent: 50 },
        { price_card: "fine", markup_percent: null },
      ],
    ]);

    const zero = file("zero.csv", "channel,route,prefix,price\nsms,*,91,0.7\nsms,T,0091,0.8\n");
    const refused = await runCli(["prices", "import", "--card", "fine", "--file", zero], env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      'Line 3: prefix must start with the country code, never with 0 (got "0091": write 91); nothing imported.',
    );
    expect(refused.stderr).not.toMatch(STACK_TRACE);
    const kept = JSON.parse(await cliOk(["prices", "show", "--card", "fine", "--json"], env));
    expect(kept.rows.map((r: { prefix: string }) => r.prefix)).toEqual(["*", "*"]);
  });
  it("imports a raised card and warns of the sub-accounts it leaves below their parent (decision 0168)", async () => {
    const card = (name: string, rows: string, extra: string[] = []) =>
      runCli(
        [
          "prices",
          "import",
          "--card",
          name,
          "--file",
          file(`${name}.csv`, `channel,route,prefix,price\n${rows}\n`),
          ...extra,
        ],
        env,
      );
    expect((await card("whole", "sms,*,*,0.1\nsms,T,9198,0.15")).code).toBe(0);
    expect((await card("shopcard", "sms,*,*,0.3\nsms,T,9198,0.25")).code).toBe(0);
    await cliOk(["accounts", "create", "--username", "whole-seller", "--password", "cli-password"], env);
    await cliOk(["accounts", "set", "--username", "whole-seller", "--price-card", "whole"], env);
    await cliOk(
      ["accounts", "create", "--username", "shop2", "--password", "cli-password", "--parent", "whole-seller"],
      env,
    );
    await cliOk(["accounts", "set", "--username", "shop2", "--price-card", "shopcard"], env);

    const raised = await card("whole", "sms,*,*,0.1\nsms,T,9198,0.4");
    expect(raised.code).toBe(0);
    expect(raised.stdout.trimEnd().split("\n")).toEqual([
      "imported 2 rows into whole",
      "warning: 1 sub-account is now priced below its parent:",
      `  - The sub-account shop2's card "shopcard" prices an SMS segment on route T to prefix 9198 at 0.25, below its parent whole-seller's price there (0.4): whole-seller pays more for each such send than shop2 is charged.`,
      "  Raise their cards (prices import) or put them on a markup (accounts set --no-price-card).",
    ]);
    const json = JSON.parse((await card("whole", "sms,*,*,0.1\nsms,T,9198,0.4", ["--json"])).stdout);
    expect(
      json.below_parent.map((b: { username: string; units_below: number }) => [b.username, b.units_below]),
    ).toEqual([["shop2", 1]]);
    expect(await cliOk(["accounts", "show", "whole-seller"], env)).toContain(
      `warning:       The sub-account shop2's card "shopcard" prices an SMS segment on route T to prefix 9198 at 0.25`,
    );
    // A price too fine names its column and echoes it as written.
    const fine = await card("whole", "sms,*,*,0.1\nsms,T,9198,0.12345");
    expect(fine.code).not.toBe(0);
    expect(fine.stderr).toContain(
      'Line 3: price must be a number of credits with at most 3 decimals (0.001 is the smallest step the ledger keeps) (got "0.12345"); nothing imported.',
    );
    expect(fine.stderr).not.toMatch(STACK_TRACE);
  });
});
