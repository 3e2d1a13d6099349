// The first start's credentials are printed once; a start that cannot listen must not spend
// them. Run through the real executable, as an operator meets it.
import net from "node:net";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { cliOk, runCli, STACK_TRACE, startServer } from "../helpers/cli.js";
import { createEmptyDatabase, type EmptyDatabase } from "../helpers/empty-database.js";
import { describeEnginesTogether } from "../helpers/engines.js";

// Several processes in a row, each a second or more of Node start-up on two busy cores.
vi.setConfig({ testTimeout: 120_000 });
/**
 * A first start listens, then seeds the accounts (argon2 hashes) before it says it is running:
 * on a slow machine amid the whole suite that took over the helper's 20 s once. A start on a
 * busy port migrates first: it waited over 20 s for other schemas' migrations while the
 * migration lock was one for the whole server (now per schema, src/store/pg-dialect.ts).
 */
const START_TIMEOUT_MS = 60_000;

/** A port some other program holds. */
async function busyPort(): Promise<{ port: number; close(): Promise<void> }> {
  const server = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return { port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function balance(url: string, key: string): Promise<number | undefined> {
  const response = await fetch(`${url}/api/v2/balance`, { headers: { authorization: `Bearer ${key}` } });
  return ((await response.json()) as { data?: { balance?: number } }).data?.balance;
}

describeEnginesTogether("switchboard start on a busy port", (engine) => {
  let empty: EmptyDatabase;
  let occupied: Awaited<ReturnType<typeof busyPort>>;
  beforeAll(async () => {
    empty = await createEmptyDatabase(engine);
    occupied = await busyPort();
  });
  afterAll(async () => {
    await occupied.close();
    await empty.drop();
  });

  it("creates nothing on a busy port, says so plainly, and the next start that listens prints the credentials", async () => {
    const env = { DATABASE_URL: empty.url, HOST: "127.0.0.1" };
    const refused = await runCli(["start"], { ...env, PORT: String(occupied.port) }, { timeoutMs: START_TIMEOUT_MS });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`switchboard: cannot listen on 127.0.0.1:${occupied.port}: the port is in use`);
    expect(refused.stderr).toContain("set PORT to a free port (PORT=0 picks one)");
    expect(refused.stderr).toContain("Nothing was created: the first start that listens prints");
    expect(refused.stderr).not.toMatch(STACK_TRACE);
    expect(refused.stdout).not.toContain("first start");
    expect(JSON.parse(await cliOk(["accounts", "list", "--json"], env))).toEqual([]);

    const first = await startServer("start", env, { timeoutMs: START_TIMEOUT_MS });
    const banner = first.output();
    const demoKey = /Demo account[\s\S]*?api key:\s+(sb_\S+)/.exec(banner)?.[1];
    expect(demoKey).toBeDefined();
    expect(await balance(first.url, demoKey!)).toBe(10_000);
    // Where the console is, at the address the gateway listens on.
    expect(banner).toContain(`Console: ${first.url}/ (sign in as the operator or the demo account)`);
    // The banner says how to replace what it shows only once.
    expect(banner).toContain("npx switchboard keys create --account demo");
    expect(banner).toContain("npx switchboard accounts set --username demo --password");
    expect(await first.stop()).toBe(0);
  });

  it("on a database with accounts, says their credentials exist and how to make new ones, which then work", async () => {
    const env = { DATABASE_URL: empty.url, HOST: "127.0.0.1" };
    const refused = await runCli(["start"], { ...env, PORT: String(occupied.port) }, { timeoutMs: START_TIMEOUT_MS });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("the port is in use");
    expect(refused.stderr).toContain("The database already has its accounts");
    expect(refused.stderr).toContain("npx switchboard keys create --account demo");
    expect(refused.stderr).toContain("npx switchboard accounts set --username demo --password P");
    expect(refused.stderr).not.toMatch(STACK_TRACE);

    // Following the message: a new key and a new password, made without a server running.
    const key = JSON.parse(await cliOk(["keys", "create", "--account", "demo", "--json"], env)).api_key as string;
    await cliOk(["accounts", "set", "--username", "demo", "--password", "a-new-demo-password"], env);
    const server = await startServer("start", env, { timeoutMs: START_TIMEOUT_MS });
    expect(server.output()).not.toContain("first start");
    expect(await balance(server.url, key)).toBe(10_000);
    const credits = await fetch(`${server.url}/api/getcredits?username=demo&password=a-new-demo-password`);
    expect(await credits.text()).toBe("10000");
    expect(await server.stop()).toBe(0);
  });
});
