// The DLT telemarketer chain (issue 40, item 2) in the SMS rules, on both engines, with the
// operator's DLT_CHAIN_REQUIRED on and DLT_TM_ID set: a send whose entity has no declared chain is
// refused on every family from one table (v2, bulk, schedule: 422 dlt_chain_missing; legacy and
// XML -31; the SMPP server 0x40C) and charged nothing, and goes once the chain is declared; the
// operator's API (PUT/GET/DELETE /admin/api/accounts/{u}/dlt/chains) appends DLT_TM_ID and refuses
// bad chains; an SMPP client's chain TLV is checked against the declared one (0x40D when it
// differs); the operator's account view names an entity without a chain among what the account
// lacks. A chain declared before DLT_TM_ID was set is shown and checked with it last. The chain on the wire to carriers: test/delivery/carriers/dlt-chain-carriers.test.ts
// and smpp-perl-smsc.test.ts.
import { createHash } from "node:crypto";
import smpp from "smpp";
import { beforeAll, expect, it } from "vitest";
import { STATUS } from "../../../src/channels/smpp-server/status.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { operatorCall } from "../../helpers/legacy.js";
import { balanceOf, FAST_SIMULATOR, keyOf } from "../../helpers/sms.js";
import { countDebits, FAMILIES, sendOn } from "../../helpers/sms-families.js";
import { boundEsme, smppAccount } from "../smpp-server/client.js";

const ENTITY = "1101160000000000061";
const OPERATOR_TM = "1702000000000000099";
const TM = "1702000000000000011";
const CHAIN_TAG = 0x1402;
smpp.addTLV("tm_chain_default_tag", { id: CHAIN_TAG, type: smpp.types.tlv.cstring });

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describeEachEngine("DLT telemarketer chain", (engine) => {
  const gateway = useTestGateway(engine, {
    env: {
      ...FAST_SIMULATOR,
      LEGACY_THROTTLE_PER_SECOND: "0",
      DLT_CHAIN_REQUIRED: "1",
      DLT_TM_ID: OPERATOR_TM,
      SMPP_SERVER_PORT: "auto",
    },
  });
  let operator: TestAccount;
  const op = (method: string, path: string, json?: unknown) => operatorCall(gateway(), operator, method, path, json);
  const admin = (method: string, path: string, json?: unknown) =>
    call(gateway(), method, `/admin/api${path}`, { headers: { authorization: `Bearer ${operator.apiKey}` }, json });

  /** Scrubbing on, header SWBRD, ENTITY white-listed (no chain yet), the OTP template. */
  async function dltAccount<T extends TestAccount>(made?: T): Promise<T> {
    const account = made ?? ((await buildAccount(gateway(), { dltScrubbing: true, credits: { sms: 1000 } })) as T);
    const u = account.username;
    await op("POST", `/accounts/${u}/dlt/headers`, { header: "SWBRD" });
    await op("POST", `/accounts/${u}/dlt/entities`, { entity_id: ENTITY });
    await op("POST", `/accounts/${u}/templates`, {
      name: "otp",
      content: "Your OTP is {#var#}.",
      entity_id: ENTITY,
      approve: true,
    });
    return account;
  }

  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
  });

  it("refuses an entity without a declared chain on every family, charging nothing, and sends once it is declared", async () => {
    const t = gateway();
    for (const family of FAMILIES) {
      for (const route of ["T", "P"] as const) {
        const account = await dltAccount();
        const message = "Your OTP is 4821.";
        const before = await balanceOf(t, account);
        const debits = await countDebits(t, account);
        const answer = await sendOn(t, account, family, { route, message });
        const what = `${family} ${route}: ${answer.message ?? ""}`;
        expect(answer.accepted, what).toBe(false);
        if (family === "legacy" || family === "xml") expect(answer.code, what).toBe("-31");
        else {
          expect(answer.status, what).toBe(422);
          expect(answer.error, what).toMatchObject({ code: "dlt_chain_missing", entity_id: ENTITY });
        }
        expect(answer.message, what).toContain(
          `DLT entity ${ENTITY} of the account ${account.username} has no declared telemarketer chain`,
        );
        expect(answer.message, what).toContain("Ask the operator to declare the telemarketer chain");
        expect(await countDebits(t, account), what).toBe(debits);
        expect(await balanceOf(t, account), what).toBe(before);
        await op("PUT", `/accounts/${account.username}/dlt/chains`, { entity_id: ENTITY, chain: [TM] });
        expect((await sendOn(t, account, family, { route, message })).accepted, what).toBe(true);
      }
    }
  });

  it("lists an entity without a chain among what the account lacks in the operator's account view", async () => {
    const account = await dltAccount();
    const u = account.username;
    const before = (await op("GET", `/accounts/${u}`)).body.data;
    expect(before.ready).toBe(false);
    expect(before.registrations.dlt_entities_without_chain).toEqual([ENTITY]);
    expect(before.missing).toContainEqual({
      what: "dlt_chain",
      message: `DLT entity ${ENTITY} has no declared telemarketer chain: its sends are refused (-31) while DLT_CHAIN_REQUIRED is on.`,
      command: expect.stringContaining(`dlt chains set --account ${u} --entity-id ${ENTITY}`),
      api: expect.stringContaining(`/accounts/${u}/dlt/chains`),
    });
    await op("PUT", `/accounts/${u}/dlt/chains`, { entity_id: ENTITY, chain: [TM] });
    const after = (await op("GET", `/accounts/${u}`)).body.data;
    expect(after.missing.map((gap: { what: string }) => gap.what)).not.toContain("dlt_chain");
    expect(after.registrations.dlt_entities_without_chain).toEqual([]);
  });

  it("declares, lists and clears chains over the operator API, the operator's TM ID last, bad chains refused", async () => {
    const t = gateway();
    const account = await dltAccount();
    const u = account.username;
    const set = await op("PUT", `/accounts/${u}/dlt/chains`, { entity_id: ENTITY, chain: [` ${TM.toLowerCase()} `] });
    expect(set.body.data).toEqual({ account: u, entity_id: ENTITY, tm_chain: [TM, OPERATOR_TM] });
    // Given with the operator's TM ID last: kept as it is.
    const again = await op("PUT", `/accounts/${u}/dlt/chains`, { entity_id: ENTITY, chain: [TM, OPERATOR_TM] });
    expect(again.body.data.tm_chain).toEqual([TM, OPERATOR_TM]);
    expect((await op("GET", `/accounts/${u}/dlt/chains`)).body.data).toEqual([
      { entity_id: ENTITY, status: "approved", tm_chain: [TM, OPERATOR_TM] },
    ]);
    // The account sees its entity's chain.
    const mine = await call(t, "GET", "/api/v2/dlt", { headers: keyOf(account) });
    expect(mine.body.data.entities).toMatchObject([{ entity_id: ENTITY, tm_chain: [TM, OPERATOR_TM] }]);
    for (const [body, fragment] of [
      [{ entity_id: ENTITY, chain: ["17-02"] }, "is not a telemarketer ID"],
      [{ entity_id: ENTITY, chain: [TM, TM] }, `TM ID ${TM} appears twice`],
      [{ entity_id: ENTITY, chain: [OPERATOR_TM, TM] }, "comes last in the chain, once"],
      [{ entity_id: "1101999999999999999", chain: [TM] }, "is not registered for the account"],
      [{ entity_id: ENTITY, chain: Array.from({ length: 10 }, (_, i) => `1702${i}`) }, "at most 10 TM IDs"],
      [{ entity_id: ENTITY, chain: [] }, "chain"],
      [{ entity_id: ENTITY }, "chain"],
    ] as const) {
      const response = await admin("PUT", `/accounts/${u}/dlt/chains`, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.code).toBe("invalid_request");
      expect(response.body.message ?? response.body.error.message).toContain(fragment);
    }
    expect((await admin("PUT", "/accounts/nobody-here/dlt/chains", { entity_id: ENTITY, chain: [TM] })).status).toBe(
      404,
    );
    const cleared = await op("DELETE", `/accounts/${u}/dlt/chains`, { entity_id: ENTITY });
    expect(cleared.body.data).toEqual({ account: u, entity_id: ENTITY, cleared: true });
    expect((await admin("DELETE", `/accounts/${u}/dlt/chains`, { entity_id: ENTITY })).status).toBe(404);
    // Cleared: the very next send is refused (caches drop the account at once).
    expect((await sendOn(t, account, "v2", { route: "T", message: "Your OTP is 1." })).code).toBe("dlt_chain_missing");
  });

  it("answers an SMPP client 0x40C without a chain, checks the chain it sends (IDs or hash, with or without the operator's TM ID), 0x40D when it differs", async () => {
    const t = gateway();
    const account = await dltAccount(await smppAccount(t, {}, { dltScrubbing: true, credits: { sms: 100 } }));
    const client = await boundEsme(t, account, "transmitter");
    const submit = (fields: Record<string, unknown> = {}) =>
      client.submit({
        source_addr: "SWBRD",
        destination_addr: "9876543210",
        short_message: "Your OTP is 1.",
        ...fields,
      });
    expect((await submit()).command_status).toBe(STATUS.SB_DLT_CHAIN);
    await op("PUT", `/accounts/${account.username}/dlt/chains`, { entity_id: ENTITY, chain: [TM] });
    const full = `${ENTITY},${TM},${OPERATOR_TM}`;
    const upstream = `${ENTITY},${TM}`;
    for (const sent of [undefined, full, upstream, sha256(full), sha256(upstream).toUpperCase(), ` ${full} `]) {
      const answer = await submit(sent === undefined ? {} : { tm_chain_default_tag: sent });
      expect(answer.command_status, String(sent)).toBe(0);
    }
    for (const sent of [`${ENTITY},1702000000000000012`, TM, sha256(`${TM},${OPERATOR_TM}`)]) {
      const answer = await submit({ tm_chain_default_tag: sent });
      expect(answer.command_status, sent).toBe(STATUS.SB_DLT_CHAIN_MISMATCH);
    }
    expect(await countDebits(t, account)).toBe(6);
  });

  it("shows and checks a chain declared before DLT_TM_ID was set with the operator's TM ID last", async () => {
    const t = gateway();
    const account = await dltAccount(await smppAccount(t, {}, { dltScrubbing: true, credits: { sms: 100 } }));
    const u = account.username;
    // As stored when it was declared without DLT_TM_ID (the operator's, or a CLI's environment).
    await t.db.store.db
      .updateTable("dlt_entities")
      .set({ tm_chain: TM })
      .where("account_id", "=", account.id)
      .where("entity_id", "=", ENTITY)
      .execute();
    expect((await op("GET", `/accounts/${u}/dlt/chains`)).body.data).toEqual([
      { entity_id: ENTITY, status: "approved", tm_chain: [TM, OPERATOR_TM] },
    ]);
    // The operator's account view and the account's own list show the same chain.
    expect((await op("GET", `/accounts/${u}/dlt/entities`)).body.data).toMatchObject([
      { entity_id: ENTITY, tm_chain: [TM, OPERATOR_TM] },
    ]);
    const mine = await call(t, "GET", "/api/v2/dlt", { headers: keyOf(account) });
    expect(mine.body.data.entities).toMatchObject([{ entity_id: ENTITY, tm_chain: [TM, OPERATOR_TM] }]);
    const client = await boundEsme(t, account, "transmitter");
    const submit = (sent: string) =>
      client.submit({
        source_addr: "SWBRD",
        destination_addr: "9876543210",
        short_message: "Your OTP is 1.",
        tm_chain_default_tag: sent,
      });
    const full = `${ENTITY},${TM},${OPERATOR_TM}`;
    for (const sent of [full, sha256(full), `${ENTITY},${TM}`]) {
      expect((await submit(sent)).command_status, sent).toBe(0);
    }
    expect((await submit(`${ENTITY},${TM},1702000000000000012`)).command_status).toBe(STATUS.SB_DLT_CHAIN_MISMATCH);
    expect(await countDebits(t, account)).toBe(3);
  });
});
