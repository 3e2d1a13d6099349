// An account's smpp_max_binds over every api process, on both engines: binds on two processes'
// SMPP ports (a second gateway on the same database) count together, binds at once on both
// never pass the limit together, and only live rows count (a dead process's are left out).
import { expect, it } from "vitest";
import { type Gateway, startGateway } from "../../../src/app/gateway.js";
import { createLogger } from "../../../src/base/runtime/logging.js";
import { openStore, type Store } from "../../../src/base/store/store.js";
import { describeEnginesTogether } from "../../helpers/engines.js";
import { type TestGateway, testConfig } from "../../helpers/gateway.js";
import { connectEsme, keepClientsOf, smppAccount, smppPort, useSmppTestGateway } from "./client.js";

const ESME_RBINDFAIL = 0x0d;

describeEnginesTogether("SMPP server: smpp_max_binds over every api process", (engine) => {
  const gateway = useSmppTestGateway(engine, { env: { SMPP_SERVER_PORT: "auto", SIMULATOR_LATENCY_MS: "20" } });

  /** A second api process on the same database, with its own connections and SMPP port. */
  async function withOther(t: TestGateway, body: (port: number) => Promise<void>): Promise<void> {
    const store: Store = await openStore(
      t.db.target,
      engine === "postgres" ? { pgSchema: t.db.schema! } : { sqliteSynchronous: "NORMAL" },
    );
    let other: Gateway | undefined;
    try {
      other = await startGateway({
        config: testConfig(t.db, { SMPP_SERVER_PORT: "auto" }),
        roles: ["api"],
        store,
        logger: createLogger({ logLevel: "silent" }),
        openApiAtStart: false,
      });
      const port = other.smpp!.ports.port!;
      keepClientsOf(port);
      await body(port);
    } finally {
      await other?.stop();
      await store.close();
    }
  }

  const bindOn = async (port: number, username: string, password: string) => {
    const client = await connectEsme(port);
    const answer = await client.bind("transceiver", username, password);
    return { client, status: answer.command_status as number };
  };

  it("counts the binds of both processes against the account's limit", async () => {
    const t = gateway();
    const account = await smppAccount(t, { maxBinds: 2 });
    await withOther(t, async (otherPort) => {
      const here = smppPort(t);
      const first = await bindOn(here, account.username, account.smppPassword);
      const second = await bindOn(otherPort, account.username, account.smppPassword);
      expect([first.status, second.status]).toEqual([0, 0]);
      // Two binds in use: a third is refused on either process (each held one).
      expect((await bindOn(here, account.username, account.smppPassword)).status).toBe(ESME_RBINDFAIL);
      const third = await bindOn(otherPort, account.username, account.smppPassword);
      expect(third.status).toBe(ESME_RBINDFAIL);
      // A place freed on one process is taken on the other; refused connections stay open and may bind again.
      await first.client.request("unbind");
      const deadline = Date.now() + 10_000;
      let again = await third.client.bind("transceiver", account.username, account.smppPassword);
      while (again.command_status !== 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        again = await third.client.bind("transceiver", account.username, account.smppPassword);
      }
      expect(again.command_status).toBe(0);
      second.client.destroy();
      third.client.destroy();
    });
  }, 60_000);

  it("lets only the limit's binds through when they come at once on both processes", async () => {
    const t = gateway();
    const account = await smppAccount(t, { maxBinds: 1 });
    await withOther(t, async (otherPort) => {
      const here = smppPort(t);
      const clients = await Promise.all([here, otherPort, here, otherPort].map((port) => connectEsme(port)));
      const answers = await Promise.all(
        clients.map((client) => client.bind("transceiver", account.username, account.smppPassword)),
      );
      const statuses = answers.map((answer) => answer.command_status as number);
      expect(statuses.filter((status) => status === 0)).toHaveLength(1);
      expect(statuses.filter((status) => status === ESME_RBINDFAIL)).toHaveLength(3);
      const rows = await t.db.store.db
        .selectFrom("smpp_binds")
        .select("id")
        .where("account_id", "=", account.id)
        .execute();
      expect(rows).toHaveLength(1);
      for (const client of clients) client.destroy();
    });
  }, 60_000);

  it("counts another process's live binds and not a dead process's", async () => {
    const t = gateway();
    const account = await smppAccount(t, { maxBinds: 1 });
    const row = (id: string, seenAt: number) => ({
      id,
      process_id: "deadbeef",
      host: "elsewhere",
      pid: 1,
      account_id: account.id,
      mode: "transceiver" as const,
      address: "10.0.0.9",
      port: 40000,
      tls: 0,
      bound_at: seenAt,
      submits: 0,
      submit_rate: 0,
      seen_at: seenAt,
      disconnect_requested_at: null,
    });
    // Another process's bind, refreshed just now: the account's one place is taken.
    await t.db.store.db.insertInto("smpp_binds").values(row("deadbeef-1", Date.now())).execute();
    const refused = await bindOn(smppPort(t), account.username, account.smppPassword);
    expect(refused.status).toBe(ESME_RBINDFAIL);
    // That process stopped reporting (it died): its row no longer counts.
    await t.db.store.db
      .updateTable("smpp_binds")
      .set({ seen_at: Date.now() - 30_000 })
      .where("id", "=", "deadbeef-1")
      .execute();
    const bound = await refused.client.bind("transceiver", account.username, account.smppPassword);
    expect(bound.command_status).toBe(0);
  });
});
