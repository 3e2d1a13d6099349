// The operator's view of the SMPP server on both engines: binds per account in /metrics; the
// operator API and the CLI list every bind (who, from where, since when, submits and their
// rate, the process holding it) and disconnect one, the client getting an unbind; and on
// PostgreSQL, binds held by another api process are listed and disconnected from this one.
import { expect, it } from "vitest";
import { startGateway } from "../../../src/app/gateway.js";
import { createLogger } from "../../../src/base/runtime/logging.js";
import { openStore } from "../../../src/base/store/store.js";
import { runCli } from "../../helpers/cli.js";
import { describeEnginesTogether } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, testConfig } from "../../helpers/gateway.js";
import { boundEsme, connectEsme, keepClientsOf, smppAccount, until, useSmppTestGateway } from "./client.js";

describeEnginesTogether("SMPP server: binds in /metrics, the operator API and the CLI", (engine) => {
  const gateway = useSmppTestGateway(engine, { env: { SMPP_SERVER_PORT: "auto", SIMULATOR_LATENCY_MS: "20" } });
  let operator: TestAccount | undefined;
  const admin = async (method: string, path: string) => {
    const t = gateway();
    operator ??= await buildAccount(t, { role: "operator", sender: null });
    return call(t, method, `/admin/api${path}`, { headers: { authorization: `Bearer ${operator.apiKey}` } });
  };
  const bindsOf = async (username: string) => (await admin("GET", `/smpp/binds?username=${username}`)).body.data;

  it("lists each bind with its account, mode, address, start, submits and rate, and counts binds in /metrics", async () => {
    const t = gateway();
    const acme = await smppAccount(t, {}, { credits: { sms: 100 } });
    const other = await smppAccount(t);
    const before = Date.now();
    const transmitter = await boundEsme(t, acme, "transmitter");
    await boundEsme(t, acme, "receiver");
    await boundEsme(t, other, "transceiver");
    for (let i = 0; i < 6; i++) {
      const answer = await transmitter.submit({
        source_addr: "SWBRD",
        destination_addr: "9876543210",
        short_message: "x",
      });
      expect(answer.command_status).toBe(0);
    }
    // Rows are refreshed every 5 s with the submits and their rate.
    await until(
      async () => (await bindsOf(acme.username)).some((b: { submits: number }) => b.submits === 6),
      15_000,
      "the submits reported",
    );
    const binds = await bindsOf(acme.username);
    expect(binds).toHaveLength(2);
    const tx = binds.find((b: { mode: string }) => b.mode === "transmitter");
    expect(tx).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f]{8}-\d+$/),
      username: acme.username,
      address: "127.0.0.1",
      port: expect.any(Number),
      tls: false,
      submits: 6,
      process: { host: expect.any(String), pid: process.pid },
      disconnect_requested: false,
    });
    expect(tx.submits_per_second).toBeGreaterThan(0);
    expect(Date.parse(tx.bound_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(binds.find((b: { mode: string }) => b.mode === "receiver")).toMatchObject({ submits: 0 });
    const all = (await admin("GET", "/smpp/binds")).body.data.map((b: { username: string }) => b.username);
    expect(all).toEqual(expect.arrayContaining([acme.username, acme.username, other.username]));

    // Series name accounts by id: /metrics is often open to more eyes than the accounts' names.
    const metrics = (await call(t, "GET", "/metrics")).text;
    expect(metrics).toContain(`switchboard_smpp_binds{account_id="${acme.id}",mode="transmitter"} 1`);
    expect(metrics).toContain(`switchboard_smpp_binds{account_id="${acme.id}",mode="receiver"} 1`);
    expect(metrics).toContain(`switchboard_smpp_binds{account_id="${other.id}",mode="transceiver"} 1`);
    expect(metrics).toContain(`switchboard_smpp_submits_total{account_id="${acme.id}",result="accepted"} 6`);
    expect(metrics).not.toContain(acme.username);
    expect(metrics).not.toContain(other.username);

    await transmitter.request("unbind");
    await until(async () => (await bindsOf(acme.username)).length === 1);
    expect((await call(t, "GET", "/metrics")).text).toContain(
      `switchboard_smpp_binds{account_id="${acme.id}",mode="transmitter"} 0`,
    );
  });

  it("disconnects one bind over the operator API: the client is asked to unbind, the others stay", async () => {
    const t = gateway();
    const account = await smppAccount(t);
    const first = await boundEsme(t, account, "transceiver");
    const second = await boundEsme(t, account, "transceiver");
    const [one, two] = await bindsOf(account.username);
    const answer = await admin("DELETE", `/smpp/binds/${one.id}`);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.data).toMatchObject({ id: one.id, username: account.username, closed: true });
    await until(() => first.closed, 5_000, "the first client closed");
    expect(second.closed).toBe(false);
    expect((await bindsOf(account.username)).map((b: { id: string }) => b.id)).toEqual([two.id]);

    const unknown = await admin("DELETE", `/smpp/binds/${one.id}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ status: "error", error: { code: "not_found" } });
    expect((await admin("GET", "/smpp/binds?username=nobody-here")).status).toBe(404);
    expect((await admin("GET", "/smpp/binds?colour=red")).status).toBe(400);
  });

  it("lists and disconnects binds from the CLI", async () => {
    const t = gateway();
    const account = await smppAccount(t);
    const client = await boundEsme(t, account, "receiver");
    const env = { DATABASE_URL: t.db.url };
    const listed = await runCli(["smpp", "binds", "--username", account.username, "--json"], env, {
      timeoutMs: 60_000,
    });
    expect(listed.code, listed.stderr).toBe(0);
    const [bind] = JSON.parse(listed.stdout);
    expect(bind).toMatchObject({ username: account.username, mode: "receiver", address: "127.0.0.1" });
    const text = await runCli(["smpp", "binds"], env, { timeoutMs: 60_000 });
    expect(text.stdout).toMatch(/^ID\s+USERNAME\s+MODE\s+FROM/);
    expect(text.stdout).toContain(bind.id);

    // On SQLite the CLI cannot signal the server: the server sees the request on its row.
    const gone = await runCli(["smpp", "disconnect", bind.id], env, { timeoutMs: 60_000 });
    expect(gone.code, gone.stderr).toBe(0);
    expect(gone.stdout).toContain(`disconnected ${bind.id} (${account.username} from 127.0.0.1:`);
    await until(() => client.closed, 5_000, "the client closed");
    const again = await runCli(["smpp", "disconnect", bind.id], env, { timeoutMs: 60_000 });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`No SMPP bind "${bind.id}" is open`);
  }, 120_000);

  it("leaves out the binds of a process that stopped reporting them", async () => {
    const t = gateway();
    const account = await smppAccount(t);
    await boundEsme(t, account, "transmitter");
    const [live] = await bindsOf(account.username);
    // The row of a process that stopped (killed) 30 s ago, beside this live process's bind, whose
    // reports go on: aging the live row instead raced its next report on a busy machine.
    const stopped = Date.now() - 30_000;
    await t.db.store.db
      .insertInto("smpp_binds")
      .values({
        id: "deadbeef-1",
        process_id: "a-stopped-process",
        host: "elsewhere",
        pid: 999_999,
        account_id: account.id,
        mode: "receiver",
        address: "127.0.0.1",
        port: 40_000,
        tls: 0,
        bound_at: stopped - 60_000,
        submits: 3,
        submit_rate: 0,
        seen_at: stopped,
        disconnect_requested_at: null,
      })
      .execute();
    expect((await bindsOf(account.username)).map((bind: { id: string }) => bind.id)).toEqual([live.id]);
  });

  if (engine === "postgres") {
    it("lists and disconnects the binds of another api process", async () => {
      const t = gateway();
      const account = await smppAccount(t);
      // A second api process on the same database, with its own connections and SMPP port.
      const store = await openStore(t.db.target, { pgSchema: t.db.schema! });
      const other = await startGateway({
        config: testConfig(t.db, { SMPP_SERVER_PORT: "auto" }),
        roles: ["api"],
        store,
        logger: createLogger({ logLevel: "silent" }),
        openApiAtStart: false,
      });
      // Its client is ended here (disconnected, or by the other process's stop), not by the
      // other engine's suite running at the same time.
      keepClientsOf(other.smpp!.ports.port!);
      try {
        const client = await connectEsme(other.smpp!.ports.port!);
        expect((await client.bind("transceiver", account.username, account.smppPassword)).command_status).toBe(0);
        const [bind] = await bindsOf(account.username);
        expect(bind).toMatchObject({ username: account.username, mode: "transceiver" });
        // Not this process's bind, so it came through the table.
        expect(t.gateway.smpp!.list().map((b) => b.id)).not.toContain(bind.id);
        expect(other.smpp!.list().map((b) => b.id)).toEqual([bind.id]);
        const answer = await admin("DELETE", `/smpp/binds/${bind.id}`);
        expect(answer.status, answer.text).toBe(200);
        await until(() => client.closed, 5_000, "the other process's client closed");
        expect(other.smpp!.list()).toEqual([]);
      } finally {
        await other.stop();
        await store.close();
      }
    }, 60_000);
  }
});
