// The SMPP server through the real gateway on both engines, with the `smpp` npm package as the
// ESME: binds and their refusals (wrong password, no SMPP access, login locks, addresses,
// binds at once), submit_sm accepted through the shared acceptor (charged, its id found by the
// status API and the v2 list), throttling, and commands out of place.
import { expect, it } from "vitest";
import { setSmppSettings } from "../../../src/channels/smpp-server/index.js";
import { runCli } from "../../helpers/cli.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, useTestGateway } from "../../helpers/gateway.js";
import { boundEsme, connectEsme, smppAccount, smppPort, until } from "./client.js";

const ESME_RINVPASWD = 0x0e;
const ESME_RBINDFAIL = 0x0d;
const ESME_RINVBNDSTS = 0x04;
const ESME_RALYBND = 0x05;
const ESME_RTHROTTLED = 0x58;

describeEachEngine("SMPP server: binds and submit_sm", (engine) => {
  const gateway = useTestGateway(engine, {
    env: { SMPP_SERVER_PORT: "auto", LOGIN_LOCK_THRESHOLD: "3", SIMULATOR_LATENCY_MS: "20" },
  });

  it("binds with the account's username and SMPP password, in every mode", async () => {
    const t = gateway();
    const account = await smppAccount(t);
    for (const mode of ["transmitter", "receiver", "transceiver"] as const) {
      const client = await connectEsme(smppPort(t));
      const answer = await client.bind(mode, account.username, account.smppPassword);
      expect(answer.command_status).toBe(0);
      expect(answer.command).toBe(`bind_${mode}_resp`);
      expect(answer.system_id).toBe("Switchboard");
      const again = await client.bind(mode, account.username, account.smppPassword);
      expect(again.command_status).toBe(ESME_RALYBND);
      const unbound = await client.request("unbind");
      expect(unbound.command).toBe("unbind_resp");
      client.destroy();
    }
  });

  it("answers every credential failure alike: wrong password, unknown user, no SMPP access, the HTTP password", async () => {
    const t = gateway();
    const account = await smppAccount(t);
    const noSmpp = await smppAccount(t);
    await setSmppSettings(t.db.store, t.clock, noSmpp.username, { password: null });
    const attempts: Array<[string, string]> = [
      [account.username, "wrong"],
      [`nobody${account.username}`, account.smppPassword],
      [noSmpp.username, noSmpp.smppPassword],
      [account.username, account.password.slice(0, 8)],
    ];
    for (const [systemId, password] of attempts) {
      const client = await connectEsme(smppPort(t));
      const answer = await client.bind("transceiver", systemId, password);
      expect(answer.command_status, `${systemId}/${password}`).toBe(ESME_RINVPASWD);
      // Still open and unbound: a submit is refused as out of place.
      const submit = await client.submit({ source_addr: "SWBRD", destination_addr: "9876543210", short_message: "x" });
      expect(submit.command_status).toBe(ESME_RINVBNDSTS);
      client.destroy();
    }
  });

  it("counts failed binds in the login locks: locked, even the right password is refused alike", async () => {
    const t = gateway();
    const account = await smppAccount(t);
    for (let i = 0; i < 3; i++) {
      const client = await connectEsme(smppPort(t));
      expect((await client.bind("transmitter", account.username, "guess")).command_status).toBe(ESME_RINVPASWD);
      client.destroy();
    }
    const client = await connectEsme(smppPort(t));
    expect((await client.bind("transmitter", account.username, account.smppPassword)).command_status).toBe(
      ESME_RINVPASWD,
    );
    const locks = await t.db.store.db
      .selectFrom("login_failures")
      .select(["address", "locked_until"])
      .where("account_id", "=", account.id)
      .execute();
    expect(locks).toHaveLength(1);
    expect(locks[0]!.locked_until).toBeGreaterThan(Date.now());
    // The HTTP password of the same account is locked from that address too: one lock for both.
    const http = await call(
      t,
      "GET",
      `/api/getcredits?${new URLSearchParams({ username: account.username, password: account.password })}`,
    );
    expect(http.text).toBe("-16");
  });

  it("refuses binds from an address the account does not allow, like a wrong password", async () => {
    const t = gateway();
    const account = await smppAccount(t, { allowedIps: ["203.0.113.0/24"] });
    const client = await connectEsme(smppPort(t));
    expect((await client.bind("transceiver", account.username, account.smppPassword)).command_status).toBe(
      ESME_RINVPASWD,
    );
    await setSmppSettings(t.db.store, t.clock, account.username, { allowedIps: ["203.0.113.0/24", "127.0.0.1"] });
    const allowed = await connectEsme(smppPort(t));
    expect((await allowed.bind("transceiver", account.username, account.smppPassword)).command_status).toBe(0);
  });

  it("limits binds at once per account, and frees the place when a bind closes", async () => {
    const t = gateway();
    const account = await smppAccount(t, { maxBinds: 2 });
    const first = await boundEsme(t, account, "transmitter");
    await boundEsme(t, account, "receiver");
    const third = await connectEsme(smppPort(t));
    expect((await third.bind("transceiver", account.username, account.smppPassword)).command_status).toBe(
      ESME_RBINDFAIL,
    );
    await first.request("unbind");
    await until(() => t.gateway.smpp!.list().filter((b) => b.username === account.username).length === 1);
    expect((await third.bind("transceiver", account.username, account.smppPassword)).command_status).toBe(0);
  });

  it("refuses a bind of a blocked account with ESME_RBINDFAIL", async () => {
    const t = gateway();
    const account = await smppAccount(t);
    await t.db.store.db.updateTable("accounts").set({ status: "blocked" }).where("id", "=", account.id).execute();
    const client = await connectEsme(smppPort(t));
    expect((await client.bind("transceiver", account.username, account.smppPassword)).command_status).toBe(
      ESME_RBINDFAIL,
    );
  });

  it("accepts submit_sm through the acceptor: charged, its message id known to the status API and the v2 list", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    const client = await boundEsme(t, account, "transmitter");
    const answer = await client.submit({
      source_addr: "SWBRD",
      destination_addr: "919876543210",
      short_message: "Hello over SMPP",
    });
    expect(answer.command_status).toBe(0);
    const id = answer.message_id as string;
    expect(id).toMatch(/^q[0-9A-Z]{26}$/);
    const status = await call(t, "GET", `/api/v2/sms/status/${id}`, {
      headers: { authorization: `Bearer ${account.apiKey}` },
    });
    expect(status.status).toBe(200);
    expect(status.body.data).toMatchObject({ message_id: id, mobile: "9876543210", sender_id: "SWBRD" });
    const row = await t.db.store.db.selectFrom("messages").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ account_id: account.id, sender: "SWBRD", body: "Hello over SMPP", segments: 1 });
    expect(row.route).toBe("transactional");
    const balance = await call(t, "GET", "/api/v2/balance", { headers: { authorization: `Bearer ${account.apiKey}` } });
    expect(JSON.stringify(balance.body)).toContain("9");
    const list = await call(t, "GET", "/api/v2/messages?channel=sms", {
      headers: { authorization: `Bearer ${account.apiKey}` },
    });
    expect(list.text).toContain(id);
  });

  it("answers ESME_RTHROTTLED over the account's submits per second", async () => {
    const t = gateway();
    const account = await smppAccount(t, { submitsPerSecond: 2 }, { credits: { sms: 100 } });
    const client = await boundEsme(t, account, "transmitter");
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        client.submit({ source_addr: "SWBRD", destination_addr: "9876543210", short_message: "burst" }),
      ),
    );
    const statuses = answers.map((a) => a.command_status);
    expect(statuses.filter((s) => s === ESME_RTHROTTLED).length).toBeGreaterThanOrEqual(3);
    expect(statuses.filter((s) => s === 0).length).toBeGreaterThanOrEqual(1);
    // A throttled submit has no body and charged nothing.
    const charged = await t.db.store.db
      .selectFrom("messages")
      .select("id")
      .where("account_id", "=", account.id)
      .execute();
    expect(charged.length).toBe(statuses.filter((s) => s === 0).length);
  });

  it("takes the SMPP password from `accounts set --smpp-password` and from the operator API", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const account = await buildAccount(t);
    // One CLI run: a process start takes seconds on a loaded machine.
    const set = await runCli(
      ["accounts", "set", "--username", account.username, "--smpp-password", "cli-pw1"],
      {
        DATABASE_URL: t.db.url,
      },
      { timeoutMs: 90_000 },
    );
    expect(set.code, set.stderr).toBe(0);
    const viaCli = await connectEsme(smppPort(t));
    expect((await viaCli.bind("transceiver", account.username, "cli-pw1")).command_status).toBe(0);
    const patched = await call(t, "PATCH", `/admin/api/accounts/${account.username}`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      json: { smpp_password: "api-pw2", smpp_max_binds: 2 },
    });
    expect(patched.status, patched.text).toBe(200);
    const viaApi = await connectEsme(smppPort(t));
    expect((await viaApi.bind("transceiver", account.username, "cli-pw1")).command_status).toBe(ESME_RINVPASWD);
    expect((await viaApi.bind("transceiver", account.username, "api-pw2")).command_status).toBe(0);
    const bad = await call(t, "PATCH", `/admin/api/accounts/${account.username}`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      json: { smpp_password: "has space" },
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("1 to 8 printable ASCII characters");
    const tooLong = await call(t, "PATCH", `/admin/api/accounts/${account.username}`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      json: { smpp_password: "123456789" },
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.text).toContain("at most 8");
  }, 120_000);

  it("refuses submit_sm on a receiver bind with ESME_RINVBNDSTS", async () => {
    const t = gateway();
    const account = await smppAccount(t);
    const client = await boundEsme(t, account, "receiver");
    const answer = await client.submit({ source_addr: "SWBRD", destination_addr: "9876543210", short_message: "x" });
    expect(answer.command_status).toBe(ESME_RINVBNDSTS);
  });
});
