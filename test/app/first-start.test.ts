// The first start's credentials are printed once, and work (the demo account sends as the
// banner shows); a start that cannot listen must not spend them; SIGTERM and SIGINT end a start
// with 0. Run through the real executable, as an operator meets it.
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

  it("creates nothing on a busy port, says so plainly, and the next start that listens prints the credentials, which work", async () => {
    const env = { DATABASE_URL: empty.url, HOST: "127.0.0.1", SIMULATOR_FAILURE_RATE: "0" };
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
    expect(banner).toContain("Switchboard first start");
    const operatorKey = /Operator[\s\S]*?api key:\s+(sb_\S+)/.exec(banner)?.[1];
    const demoKey = /Demo account[\s\S]*?api key:\s+(sb_\S+)/.exec(banner)?.[1];
    expect(operatorKey).toBeDefined();
    expect(demoKey).toBeDefined();
    expect(banner).toMatch(/Operator[\s\S]*?username: admin\n\s+password: \S{12,}/);
    expect(banner).toMatch(/Demo account[\s\S]*?username:\s+demo\n\s+password:\s+\S{12,}/);
    expect(banner).toMatch(/sender id: SWBRD \(approved; DLT header and entity 1101160000000000001 white-listed\)/);
    expect(banner).toContain(
      "template:  Your OTP is {#var#}. Do not share it with anyone. (approved, DLT template 1107160000000000001)",
    );
    expect(banner).toContain(`curl -s ${first.url}/api/v2/sms/send`);
    expect(banner).toContain('"message":"Your OTP is 482913. Do not share it with anyone."');
    expect(banner).toContain(`curl -s ${first.url}/api/v2/balance`);
    // Where the console is, at the address the gateway listens on.
    expect(banner).toContain(`Console: ${first.url}/ (sign in as the operator or the demo account)`);
    // The banner says how to replace what it shows only once.
    expect(banner).toContain("npx switchboard keys create --account demo");
    expect(banner).toContain("npx switchboard accounts set --username demo --password");

    expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
    expect(await balance(first.url, demoKey!)).toBe(10_000);
    const senders = await fetch(`${first.url}/api/v2/sender-ids`, { headers: { "x-api-key": demoKey! } });
    expect(((await senders.json()) as { data: unknown }).data).toEqual([
      expect.objectContaining({ sender_id: "SWBRD", status: "approved" }),
    ]);
    // The demo account passes the SMS rules as the banner and the README send: approved
    // template, white-listed header and entity (taken from the template), transactional route.
    const send = (message: string) =>
      fetch(`${first.url}/api/v2/sms/send`, {
        method: "POST",
        headers: { authorization: `Bearer ${demoKey}`, "content-type": "application/json" },
        body: JSON.stringify({ sender_id: "SWBRD", recipient: "9876543210", message }),
      });
    const otp = await send("Your OTP is 482913. Do not share it with anyone.");
    expect(otp.status, await otp.clone().text()).toBe(200);
    expect(((await otp.json()) as { data: unknown }).data).toMatchObject({ status: "queued", credits: 1 });
    expect((await send("Hello from Switchboard")).status).toBe(422);
    const operator = { headers: { authorization: `Bearer ${operatorKey}` } };
    const templates = await fetch(`${first.url}/admin/api/accounts/demo/templates`, operator);
    expect(((await templates.json()) as { data: unknown }).data).toEqual([
      expect.objectContaining({
        name: "otp",
        status: "approved",
        dlt_template_id: "1107160000000000001",
        entity_id: "1101160000000000001",
        sender_id: "SWBRD",
      }),
    ]);
    expect((await fetch(`${first.url}/admin/api/accounts`, operator)).status).toBe(200);
    expect(await first.stop("SIGTERM")).toBe(0);
  });

  it("on a database with accounts, says their credentials exist and how to make new ones, which then work", async () => {
    // The simulator fails no SMS: the first test's send stays charged.
    const env = { DATABASE_URL: empty.url, HOST: "127.0.0.1", SIMULATOR_FAILURE_RATE: "0" };
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
    // The demo's balance is less the send of the first start's test.
    expect(await balance(server.url, key)).toBe(9_999);
    const credits = await fetch(`${server.url}/api/getcredits?username=demo&password=a-new-demo-password`);
    expect(await credits.text()).toBe("9999");
    // SIGINT ends it as SIGTERM does (the first start's test), with 0.
    expect(await server.stop("SIGINT")).toBe(0);
  });
});
