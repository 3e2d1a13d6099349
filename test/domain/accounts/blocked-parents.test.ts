// A blocked (or inactive) reseller stops its whole tree (decision 0148, audit finding F0), through
// the real server on both engines: after `PATCH /admin/api/accounts/{top} {"status":"blocked"}`
// its sub-account and that one's are refused on v2 (key and console session), legacy and XML (key
// and password), SMPP (an open bind is unbound, a new one refused), email and voice, each in its
// dialect saying a parent account is blocked, and nothing is stored or charged at any level; a
// principal cached before the block (a key's, a password's) is refused at the next request, in
// this process and in another one (its own authenticator on its own connection); reactivating
// the reseller restores every family.
import { expect, it } from "vitest";
import { openStore } from "../../../src/base/store/store.js";
import { addEmailDomain } from "../../../src/channels/email/domains.js";
import { setSmppSettings } from "../../../src/channels/smpp-server/index.js";
import { approveCallerIdFor } from "../../../src/channels/voice/index.js";
import { accountCredentials } from "../../../src/domain/accounts/index.js";
import { cliActor } from "../../../src/domain/audit/index.js";
import { Authenticator } from "../../../src/domain/auth/index.js";
import { base, postEmail } from "../../channels/email/helpers.js";
import {
  boundEsme,
  connectEsme,
  type SmppAccount,
  smppPort,
  until,
  useSmppTestGateway,
} from "../../channels/smpp-server/client.js";
import { CALLER, callParams, FAST_VOICE_SIMULATOR, placeCall } from "../../channels/voice/helpers.js";
import { callAs, signIn } from "../../helpers/console.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway } from "../../helpers/gateway.js";
import { credentials, legacy, operatorCall, pushsms, xmlSend } from "../../helpers/legacy.js";
import { auditLedger, resellerTree } from "../../helpers/resellers.js";
import { keyOf } from "../../helpers/sms.js";
import { countDebits } from "../../helpers/sms-families.js";

const ESME_RBINDFAIL = 0x0d;
const MESSAGE = "Your OTP is 1234";
const PARENT_BLOCKED = "A parent account of this account is blocked; this account cannot send.";

describeEachEngine("a blocked reseller stops its tree", (engine) => {
  const gateway = useSmppTestGateway(engine, {
    env: { SMPP_SERVER_PORT: "auto", SIMULATOR_LATENCY_MS: "20", SIMULATOR_FAILURE_RATE: "0", ...FAST_VOICE_SIMULATOR },
  });

  const CREDITS = { sms: 100, email: 20, voice: 100 };

  /** top → mid → leaf, leaf with SMPP access, an email domain and a caller number. */
  async function world(t: TestGateway) {
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const tree = await resellerTree(t, t.clock, { top: CREDITS, mid: CREDITS, leaf: CREDITS });
    const smppPassword = `s${Math.random().toString(36).slice(2, 9)}`;
    await setSmppSettings(t.db.store, t.clock, tree.leaf.username, { password: smppPassword, submitsPerSecond: 0 });
    await addEmailDomain(t.db.store.db, t.clock, tree.leaf.id, "shop.example.com", { approve: true });
    await approveCallerIdFor({ store: t.db.store, clock: t.clock, actor: cliActor() }, tree.leaf.username, CALLER);
    const leaf: SmppAccount = { ...tree.leaf, smppPassword };
    const setStatus = (status: string) =>
      operatorCall(t, operator, "PATCH", `/accounts/${tree.top.username}`, { status });
    return { ...tree, leaf, setStatus };
  }

  const v2Send = (t: TestGateway, account: TestAccount) =>
    call(t, "POST", "/api/v2/sms/send", {
      headers: keyOf(account),
      json: { sender_id: "SWBRD", recipient: "9876543210", message: MESSAGE, route: "T" },
    });
  const legacySend = (t: TestGateway, auth: Record<string, string>) =>
    legacy(t, "/httpapi/send", {
      ...auth,
      sender_id: "SWBRD",
      route: "T",
      phonenumber: "9876543210",
      message: MESSAGE,
    });
  const xml = (t: TestGateway, account: TestAccount) =>
    xmlSend(
      t,
      pushsms(credentials(account), { sender: "SWBRD", route: "T", messages: [{ pno: "9876543210", msg: MESSAGE }] }),
    );
  const submit = { source_addr: "SWBRD", destination_addr: "9876543210", short_message: MESSAGE };

  async function stored(t: TestGateway, accountIds: number[]): Promise<number> {
    const rows = await t.db.store.db
      .selectFrom("messages")
      .select("id")
      .where("account_id", "in", accountIds)
      .execute();
    return rows.length;
  }

  it("refuses every family of the sub-accounts, charging nothing, and reactivating restores them", async () => {
    const t = gateway();
    const { top, mid, leaf, setStatus } = await world(t);
    // Before the block: a session, a bind, a key and a password login, each used (and cached).
    const session = await signIn(t, leaf.username, leaf.password);
    const esme = await boundEsme(t, leaf);
    expect((await esme.submit(submit)).command_status).toBe(0);
    expect((await v2Send(t, leaf)).status).toBe(200);
    expect((await legacySend(t, credentials(leaf))).text).toMatch(/^\d+_\d{8}_\d+$/);
    const ids = [top.id, mid.id, leaf.id];
    const debits = await Promise.all([top, mid, leaf].map((account) => countDebits(t, account)));
    const messages = await stored(t, ids);

    await setStatus("blocked");
    // The reseller's own key, as before; its customers' now too, saying why without naming it.
    const own = await v2Send(t, top);
    expect([own.body.error.code, own.body.message]).toEqual(["account_inactive", "The account is blocked."]);
    for (const account of [mid, leaf]) {
      const refused = await v2Send(t, account);
      expect(refused.status, account.username).toBe(403);
      expect([refused.body.error.code, refused.body.message]).toEqual([
        "account_inactive",
        "A parent account of this account is blocked, which stops this account too.",
      ]);
      expect(refused.text).not.toContain(top.username);
    }
    const bySession = await callAs(t, session, "GET", "/api/v2/balance");
    expect(bySession.status).toBe(403);
    expect(bySession.body.error.code).toBe("account_inactive");
    const signInAgain = await call(t, "POST", "/console/session", {
      json: { username: leaf.username, password: leaf.password },
    });
    expect(signInAgain.status).toBe(403);
    for (const auth of [credentials(leaf), { api_key: leaf.apiKey }]) {
      const answer = await legacySend(t, auth);
      expect(answer.text).toBe("-16");
      expect(answer.headers.get("x-error-message")).toBe(PARENT_BLOCKED);
    }
    const xmlAnswer = await xml(t, leaf);
    expect(xmlAnswer.text).toBe("-16");
    expect(xmlAnswer.headers.get("x-error-message")).toBe(PARENT_BLOCKED);
    expect((await postEmail(t, base(leaf))).text).toBe("-7");
    expect((await placeCall(t, "JSON", callParams(leaf))).text).toBe("-7");
    // The open bind is unbound, as an own block's is; a new bind refused.
    await until(() => esme.closed, 5_000, "the bind of the blocked reseller's customer unbound");
    expect(esme.unbinds).toBe(1);
    const again = await connectEsme(smppPort(t));
    expect((await again.bind("transceiver", leaf.username, leaf.smppPassword)).command_status).toBe(ESME_RBINDFAIL);
    again.destroy();
    expect(await stored(t, ids)).toBe(messages);
    expect(await Promise.all([top, mid, leaf].map((account) => countDebits(t, account)))).toEqual(debits);

    // inactive stops the tree the same way.
    await setStatus("inactive");
    expect((await v2Send(t, leaf)).body.message).toBe(
      "A parent account of this account is inactive, which stops this account too.",
    );

    await setStatus("active");
    expect((await v2Send(t, leaf)).status).toBe(200);
    expect((await v2Send(t, mid)).status).toBe(200);
    expect((await callAs(t, session, "GET", "/api/v2/balance")).status).toBe(200);
    expect((await legacySend(t, credentials(leaf))).text).toMatch(/^\d+_\d{8}_\d+$/);
    expect((await xml(t, leaf)).text).toMatch(/^\d+_\d{8}_\d+$/);
    expect((await postEmail(t, base(leaf))).text).toMatch(/^\d+_\d{8}_\d+$/);
    expect((await placeCall(t, "JSON", callParams(leaf))).text).toMatch(/^\d+_\d{8}_\d+$/);
    const rebound = await boundEsme(t, leaf);
    expect((await rebound.submit(submit)).command_status).toBe(0);
    await auditLedger(t);
  });

  it("drops a sub-account's principal cached by another process when its reseller is blocked", async () => {
    const t = gateway();
    const { leaf, setStatus } = await world(t);
    // Another process: its own store (connection, signals) and authenticator on the same database.
    const other = await openStore(t.db.target, t.db.schema ? { pgSchema: t.db.schema } : {});
    const authenticator = new Authenticator(other, accountCredentials, t.clock, t.config);
    try {
      expect((await authenticator.byApiKey(leaf.apiKey)).status).toBe("active");
      expect((await authenticator.byPassword(leaf.username, leaf.password, "127.0.0.1")).status).toBe("active");
      await setStatus("blocked");
      await until(
        async () => (await authenticator.byApiKey(leaf.apiKey)).status === "blocked",
        5_000,
        "the other process's cached key dropped",
      );
      expect(await authenticator.byPassword(leaf.username, leaf.password, "127.0.0.1")).toMatchObject({
        status: "blocked",
        statusOfParent: true,
      });
      await setStatus("active");
      await until(
        async () => (await authenticator.byApiKey(leaf.apiKey)).status === "active",
        5_000,
        "the other process's cached key dropped again",
      );
    } finally {
      authenticator.close();
      await other.close();
    }
  });
});
