// GET /api/v2/smpp/binds on both engines over real binds: the account's own binds (never another
// account's) with its SMPP access, a reseller's sub-account's with `?subaccount=` (at any depth:
// a grandchild's; another tree's, a sibling's or a parent's 404 as an unknown name), the holding
// process left out; refusals in the v2 dialect.
import { expect, it } from "vitest";
import { setSmppSettings } from "../../../src/channels/smpp-server/index.js";
import { describeEnginesTogether } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount } from "../../helpers/gateway.js";
import { resellerTree, subAccount } from "../../helpers/resellers.js";
import { boundEsme, smppAccount, until, useSmppTestGateway } from "./client.js";

describeEnginesTogether("SMPP server: an account's own binds on v2", (engine) => {
  const gateway = useSmppTestGateway(engine, { env: { SMPP_SERVER_PORT: "auto", SIMULATOR_LATENCY_MS: "20" } });
  const binds = (account: TestAccount, query = "") =>
    call(gateway(), "GET", `/api/v2/smpp/binds${query}`, { headers: { authorization: `Bearer ${account.apiKey}` } });

  it("lists the caller's binds with its SMPP access, and none of another account's", async () => {
    const t = gateway();
    const acme = await smppAccount(t, { maxBinds: 3, allowedIps: ["127.0.0.0/8"] });
    const other = await smppAccount(t);
    const before = Date.now();
    const transmitter = await boundEsme(t, acme, "transmitter");
    await boundEsme(t, acme, "receiver");
    await boundEsme(t, other, "transceiver");
    for (let i = 0; i < 3; i++) {
      const answer = await transmitter.submit({
        source_addr: "SWBRD",
        destination_addr: "9876543210",
        short_message: "x",
      });
      expect(answer.command_status).toBe(0);
    }
    // Rows are refreshed every 5 s with the submits.
    await until(
      async () => (await binds(acme)).body.data.binds.some((b: { submits: number }) => b.submits === 3),
      15_000,
      "the submits reported",
    );
    const answer = await binds(acme);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({
      status: "success",
      data: { enabled: true, max_binds: 3, submits_per_second: 0, allowed_ips: ["127.0.0.0/8"] },
    });
    const listed = answer.body.data.binds;
    expect(listed.map((b: { mode: string }) => b.mode)).toEqual(["transmitter", "receiver"]);
    expect(listed[0]).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-\d+$/),
      username: acme.username,
      mode: "transmitter",
      address: "127.0.0.1",
      port: expect.any(Number),
      tls: false,
      bound_at: expect.any(String),
      submits: 3,
      submits_per_second: expect.any(Number),
    });
    expect(Date.parse(listed[0].bound_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(listed[1]).toMatchObject({ username: acme.username, submits: 0 });
    expect(answer.text).not.toContain(other.username);

    await transmitter.request("unbind");
    await until(async () => (await binds(acme)).body.data.binds.length === 1, 10_000, "the unbind listed");
  });

  it("says so when the account has no SMPP access, and answers for a sub-account with ?subaccount=", async () => {
    const t = gateway();
    const parent = await buildAccount(t);
    const none = await binds(parent);
    expect(none.status, none.text).toBe(200);
    expect(none.body.data).toEqual({
      enabled: false,
      max_binds: null,
      submits_per_second: null,
      allowed_ips: null,
      binds: [],
    });
    const child = await subAccount(t, parent);
    const smppPassword = "subpw1";
    await setSmppSettings(t.db.store, t.clock, child.username, { password: smppPassword });
    await boundEsme(t, { ...child, smppPassword }, "transceiver");
    const theirs = await binds(parent, `?subaccount=${child.username}`);
    expect(theirs.status, theirs.text).toBe(200);
    expect(theirs.body.data).toMatchObject({ enabled: true, max_binds: 4, submits_per_second: 100 });
    expect(theirs.body.data.binds).toEqual([
      expect.objectContaining({ username: child.username, mode: "transceiver" }),
    ]);
    // The parent's own binds stay its own: none.
    expect((await binds(parent)).body.data.binds).toEqual([]);
    // A sub-account never sees its parent's, nor a stranger's.
    const up = await binds(child, `?subaccount=${parent.username}`);
    expect(up.status, up.text).toBe(404);
    expect(up.body).toMatchObject({ status: "error", error: { code: "not_found" } });
    const stranger = await buildAccount(t);
    expect((await binds(stranger, `?subaccount=${child.username}`)).status).toBe(404);
    expect((await binds(child)).body.data.binds).toHaveLength(1);
  });

  it("answers for a grandchild, and 404 for another tree's account, a sibling's or an id", async () => {
    const t = gateway();
    const { top, mid, leaf } = await resellerTree(t, t.clock);
    const sibling = await subAccount(t, mid);
    const other = await buildAccount(t);
    const otherSub = await subAccount(t, other);
    const smppPassword = "leafpw1";
    await setSmppSettings(t.db.store, t.clock, leaf.username, { password: smppPassword });
    await boundEsme(t, { ...leaf, smppPassword }, "receiver");
    for (const reader of [top, mid]) {
      const theirs = await binds(reader, `?subaccount=${leaf.username.toUpperCase()}`);
      expect(theirs.status, `${reader.username}: ${theirs.text}`).toBe(200);
      expect(theirs.body.data.enabled).toBe(true);
      expect(theirs.body.data.binds).toEqual([expect.objectContaining({ username: leaf.username, mode: "receiver" })]);
    }
    expect((await binds(top)).body.data.binds).toEqual([]);
    expect((await binds(top, `?subaccount=${mid.username}`)).body.data.binds).toEqual([]);

    const probes: [TestAccount, string][] = [
      [top, otherSub.username],
      [other, leaf.username],
      [other, mid.username],
      [sibling, leaf.username],
      [leaf, mid.username],
      [leaf, top.username],
      [mid, mid.username],
      [top, "nosuch"],
      // The parameter is a username: an account's id names none.
      [top, String(leaf.id)],
    ];
    for (const [reader, name] of probes) {
      const answer = await binds(reader, `?subaccount=${name}`);
      expect(answer.status, `${reader.username} ?subaccount=${name}`).toBe(404);
      expect(answer.body).toMatchObject({
        status: "error",
        message: `No sub-account named "${name}" under this account.`,
        error: { code: "not_found" },
      });
      expect(answer.text).not.toContain("receiver");
    }
  });

  it("refuses bad input in the v2 dialect, and a caller without a key", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const unknown = await binds(account, "?colour=red");
    expect(unknown.status, unknown.text).toBe(400);
    expect(unknown.body).toMatchObject({ status: "error", error: { code: "invalid_request" } });
    const nul = await binds(account, "?subaccount=a%00b");
    expect(nul.status, nul.text).toBe(400);
    expect(nul.body).toMatchObject({ status: "error", error: { code: "invalid_request", field: "subaccount" } });
    const long = await binds(account, `?subaccount=${"x".repeat(65)}`);
    expect(long.status, long.text).toBe(400);
    expect(long.body.status).toBe("error");
    const anonymous = await call(t, "GET", "/api/v2/smpp/binds");
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ status: "error", error: { code: "unauthorized" } });
  });
});
