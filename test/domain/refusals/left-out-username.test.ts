// The numbers a send left out keep the login name it logged in with, as a refused send's row
// does (support audit): on both engines through the real server, a legacy comma list and an XML
// document sent with a username and password leave their DND and invalid numbers' rows with that
// username (as sent), found by the operator's `username=` and `refusals list --username` beside
// the account's refused sends; SMPP names the bind's system_id on a refused submit_sm and on each
// destination a submit_multi left out; a key's send (legacy api_key, v2 bulk) names none.
import { expect, it } from "vitest";
import { boundEsme, smppAccount, until, useSmppTestGateway } from "../../channels/smpp-server/client.js";
import { cliOk } from "../../helpers/cli.js";
import { describeEnginesTogether } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway } from "../../helpers/gateway.js";
import { expectBroadcastId, legacy, operatorCall, pushsms, sendParams, xmlSend } from "../../helpers/legacy.js";

type Row = Record<string, unknown>;

describeEnginesTogether("the login name on the numbers a send left out", (engine) => {
  const gateway = useSmppTestGateway(engine, { env: { SMPP_SERVER_PORT: "auto" } });

  async function setUp(t: TestGateway, dnd: string[]) {
    const operator = await buildAccount(t, { role: "operator", sender: null });
    await operatorCall(t, operator, "POST", "/dnd", { numbers: dnd });
    return operator;
  }

  async function operatorList(t: TestGateway, operator: TestAccount, query: string): Promise<Row[]> {
    const answer = await call(t, "GET", `/admin/api/refusals?${query}&limit=500`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
    });
    expect(answer.status, answer.text).toBe(200);
    return answer.body.data;
  }

  async function written(t: TestGateway, accountId: number, count: number) {
    await until(
      async () => {
        const stored = await t.db.store.db
          .selectFrom("refusals")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("account_id", "=", accountId)
          .executeTakeFirstOrThrow();
        return Number(stored.n) >= count;
      },
      20_000,
      `${count} refusals of account ${accountId}`,
    );
  }

  it("a legacy and an XML send with a password: the rows left out keep the username, found by it", async () => {
    const t = gateway();
    const operator = await setUp(t, ["9811100099"]);
    const account = await buildAccount(t, { credits: { sms: 50 } });
    const typed = account.username.toUpperCase();
    const send = await legacy(
      t,
      "/httpapi/send",
      sendParams(account, {
        username: typed,
        route: "P",
        sender_id: "PROMOTIONAL",
        phonenumber: "9811100099,9876543210,12345",
      }),
    );
    const broadcast = expectBroadcastId(send, account, "legacy send");
    const xml = await xmlSend(
      t,
      pushsms(account, {
        sender: "PROMOTIONAL",
        route: "P",
        messages: [
          { pno: "9811100099", msg: "xml one" },
          { pno: "9876543211", msg: "xml two" },
        ],
      }),
    );
    const xmlBroadcast = expectBroadcastId(xml, account, "xml send");
    // A send by key leaves its number out too, with no login name.
    const byKey = await legacy(t, "/httpapi/send", {
      ...sendParams(account, { route: "P", sender_id: "PROMOTIONAL", phonenumber: "9811100099,9876543212" }),
      username: "",
      password: "",
      api_key: account.apiKey,
    });
    const keyBroadcast = expectBroadcastId(byKey, account, "legacy send by key");
    // A wrong password, refused whole: the row that was already found by the username.
    expect((await legacy(t, "/httpapi/send", sendParams(account, { password: "nope-not-it" }))).text).toBe("-7");
    await written(t, account.id, 4);
    await until(async () => (await operatorList(t, operator, "account=-")).length >= 1);

    const found = await operatorList(t, operator, `username=${account.username}`);
    const described = found.map((row) => [row.family, row.code, row.broadcast_id, row.username]);
    expect(described.slice(0, 2)).toEqual([
      ["legacy", "unauthorized", null, account.username],
      ["xml", "dnd_blocked", xmlBroadcast, account.username],
    ]);
    expect(described.slice(2).sort()).toEqual([
      ["legacy", "dnd_blocked", broadcast, typed],
      ["legacy", "invalid_recipient", broadcast, typed],
    ]);
    const ofKey = await operatorList(t, operator, `broadcast_id=${keyBroadcast}`);
    expect(ofKey.map((row) => [row.code, row.username])).toEqual([["dnd_blocked", null]]);

    const env = { DATABASE_URL: t.db.url, SQLITE_SYNCHRONOUS: "NORMAL" };
    const listed = JSON.parse(await cliOk(["refusals", "list", "--username", account.username, "--json"], env));
    expect(listed.data.map((row: Row) => row.code).sort()).toEqual([
      "dnd_blocked",
      "dnd_blocked",
      "invalid_recipient",
      "unauthorized",
    ]);
  }, 120_000);

  it("SMPP: the bind's system_id on a refused submit_sm and on each destination submit_multi left out", async () => {
    const t = gateway();
    const operator = await setUp(t, ["9811100097"]);
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    const client = await boundEsme(t, account, "transceiver");
    const multi = await client.request("submit_multi", {
      source_addr: "PROMOTIONAL",
      service_type: "P",
      dest_address: [
        { dest_addr_ton: 0, dest_addr_npi: 1, destination_addr: "9876543274" },
        { dest_addr_ton: 0, dest_addr_npi: 1, destination_addr: "9811100097" },
        { dest_addr_ton: 0, dest_addr_npi: 1, destination_addr: "98765" },
      ],
      short_message: "to three",
    });
    expect(multi.command_status).toBe(0);
    const refused = await client.request("submit_sm", {
      source_addr: "PROMOTIONAL",
      service_type: "P",
      destination_addr: "9811100097",
      short_message: "to one",
    });
    expect(refused.command_status).not.toBe(0);
    client.destroy();
    await written(t, account.id, 3);

    const rows = await operatorList(t, operator, `account=${account.username}`);
    expect(rows.map((row) => [row.operation, row.code, row.username])).toEqual([
      ["submit_sm", "dnd_blocked", account.username],
      ["submit_multi", "dnd_blocked", account.username],
      ["submit_multi", "invalid_recipient", account.username],
    ]);
    expect(await operatorList(t, operator, `username=${account.username.toUpperCase()}`)).toHaveLength(3);
  });

  it("a v2 bulk send (a key) leaves its numbers out with no login name", async () => {
    const t = gateway();
    const operator = await setUp(t, ["9811200001"]);
    const account = await buildAccount(t, { credits: { sms: 50 } });
    const sent = await call(t, "POST", "/api/v2/sms/bulk", {
      headers: { authorization: `Bearer ${account.apiKey}` },
      json: {
        sender_id: "PROMOTIONAL",
        route: "promotional",
        message: "Sale",
        recipients: ["9876100001", "9811200001"],
      },
    });
    expect(sent.status, sent.text).toBe(200);
    await written(t, account.id, 1);
    const rows = await operatorList(t, operator, `account=${account.username}`);
    expect(rows.map((row) => [row.code, row.username])).toEqual([["dnd_blocked", null]]);
  });
});
