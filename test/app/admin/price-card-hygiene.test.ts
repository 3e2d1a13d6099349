// Price card hygiene through the operator API and the CLI (audit F4), on both engines: a name
// in other capitals names the same card (PUT replaces it, GET shows it, an account is set to
// it); a PUT with no rows is refused unless ?allow_empty=true; DELETE refuses a card an account
// is priced by (409 saying how many), deletes an unused one (audited) and answers 404 after;
// `switchboard prices delete` does the same.
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { cliOk, runCli } from "../../helpers/cli.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { operatorCall } from "../../helpers/legacy.js";

const ROW = { channel: "sms", route: "*", prefix: "91", price: 0.2 };

describeEachEngine("price cards: names in any case, empty uploads, delete", (engine) => {
  const gateway = useTestGateway(engine, { roles: ["api"] });
  let operator: TestAccount;
  const op = (method: string, path: string, json?: unknown) => operatorCall(gateway(), operator, method, path, json);
  const raw = (method: string, path: string, json?: unknown) =>
    call(gateway(), method, `/admin/api${path}`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      ...(json !== undefined ? { json } : {}),
    });

  it("treats a name in other capitals as the same card", async () => {
    operator = await buildAccount(gateway(), { role: "operator" });
    expect((await op("PUT", "/price-cards/India-Retail", { rows: [ROW] })).body.data).toEqual({
      name: "india-retail",
      rows: 1,
      below_parent: [],
    });
    expect(
      (await op("PUT", "/price-cards/INDIA-RETAIL", { rows: [ROW, { ...ROW, prefix: "9198" }] })).body.data,
    ).toEqual({ name: "india-retail", rows: 2, below_parent: [] });
    const names = (await op("GET", "/price-cards")).body.data.map((c: { name: string }) => c.name);
    expect(names).toEqual(["default", "india-retail"]);
    expect((await op("GET", "/price-cards/India-RETAIL")).body.data).toMatchObject({ name: "india-retail" });
    const account = await buildAccount(gateway());
    await op("PATCH", `/accounts/${account.username}`, { price_card: "INDIA-retail" });
    expect((await op("GET", `/accounts/${account.username}`)).body.data.price_card).toBe("india-retail");
  });

  it("refuses a PUT without rows unless allow_empty=true", async () => {
    const refused = await raw("PUT", "/price-cards/india-retail", { rows: [] });
    expect([refused.status, refused.body.error.field]).toEqual([400, "rows"]);
    expect(refused.body.message).toContain("?allow_empty=true");
    expect((await op("GET", "/price-cards/india-retail")).body.data.rows).toHaveLength(2);
    const emptied = await op("PUT", "/price-cards/india-retail?allow_empty=true", { rows: [] });
    expect(emptied.body.data).toEqual({ name: "india-retail", rows: 0, below_parent: [] });
    expect((await raw("PUT", "/price-cards/x?allow_empty=yes", { rows: [] })).status).toBe(400);
  });

  it("deletes a card no account uses, audited; refuses one in use naming how many", async () => {
    const inUse = await raw("DELETE", "/price-cards/India-Retail");
    expect([inUse.status, inUse.body.error.code, inUse.body.message]).toEqual([
      409,
      "conflict",
      'The price card "india-retail" prices 1 account: move it to another card first.',
    ]);
    await op("PUT", "/price-cards/typo-card", { rows: [ROW] });
    expect((await op("DELETE", "/price-cards/TYPO-card")).body.data).toEqual({ name: "typo-card", deleted: true });
    expect((await raw("GET", "/price-cards/typo-card")).status).toBe(404);
    expect((await raw("DELETE", "/price-cards/typo-card")).status).toBe(404);
    expect((await raw("DELETE", "/price-cards/default")).status).toBe(400);
    const audit = (await op("GET", "/audit?action=price_card.delete")).body.data;
    expect(audit).toMatchObject([{ action: "price_card.delete", target: "price card typo-card", before: { rows: 1 } }]);
  });
});

// Every step spawns a CLI process (a second of Node start-up each).
vi.setConfig({ testTimeout: 120_000 });

describeEachEngine("switchboard prices delete", (engine) => {
  let db: TestDatabase;
  let env: Record<string, string>;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
    env = { DATABASE_URL: db.url, SQLITE_SYNCHRONOUS: "NORMAL" };
  });
  afterAll(async () => db?.drop());

  it("deletes an unused card by its name in any case, and refuses one an account uses", async () => {
    const fs = await import("node:fs/promises");
    const file = `${await fs.mkdtemp("/tmp/prices-delete-")}/card.csv`;
    await fs.writeFile(file, "channel,route,prefix,price\nsms,*,91,0.2\n");
    expect(await cliOk(["prices", "import", "--card", "Old-Card", "--file", file], env)).toBe(
      "imported 1 row into old-card\n",
    );
    await cliOk(["prices", "import", "--card", "used", "--file", file], env);
    await cliOk(["accounts", "create", "--username", "card-user", "--password", "cli-password"], env);
    await cliOk(["accounts", "set", "--username", "card-user", "--price-card", "USED"], env);
    const refused = await runCli(["prices", "delete", "used"], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('The price card "used" prices 1 account');
    expect(await cliOk(["prices", "delete", "OLD-CARD"], env)).toBe("deleted the price card old-card\n");
    const list = JSON.parse(await cliOk(["prices", "list", "--json"], env));
    expect(list.map((c: { name: string }) => c.name)).toEqual(["default", "used"]);
  });
});
