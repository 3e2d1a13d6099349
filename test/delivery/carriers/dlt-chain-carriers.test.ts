// The DLT telemarketer chain carried to carriers (issue 40, item 2), through the real server on
// both engines: an smpp connector whose dlt_tags.tm_chain names a tag and a format sends the
// entity's declared chain in that TLV to our fake SMSC (as the IDs PE,TM1,…, or their SHA-256),
// none when the entity has no chain or the connector names no tag; an http-sms aggregator gets
// it through {dlt_tm_chain} and {dlt_tm_chain_hash}; a tag equal to another DLT tag is refused.
// A chain declared before DLT_TM_ID was set reaches both with the operator's TM ID last.
// Against Perl's Net::SMPP: smpp-perl-smsc.test.ts.
import { createHash } from "node:crypto";
import { afterEach, expect, it } from "vitest";
import { until } from "../../domain/webhooks/receiver.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { operatorCall } from "../../helpers/legacy.js";
import { sendSms } from "../../helpers/sms.js";
import { smppDefinition, useCarrierApi } from "./carrier-api.js";
import { FakeAggregator } from "./fake-aggregator.js";
import { aggregatorDefinition } from "./http-sms-helpers.js";
import { fakeSmsc } from "./smpp-helpers.js";

const ENTITY = "1101234567890123471";
const BARE_ENTITY = "1101234567890123472";
const OPERATOR_TM = "1702000000000000099";
const TM = "1702000000000000011";
const CHAIN = `${ENTITY},${TM},${OPERATOR_TM}`;
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

const running: Array<{ stop(): Promise<void> }> = [];
afterEach(async () => {
  for (const thing of running.splice(0)) await thing.stop();
});

describeEachEngine("DLT telemarketer chain to the carriers", (engine) => {
  const gateway = useTestGateway(engine, {
    env: { SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1", DLT_TM_ID: OPERATOR_TM },
  });
  const { admin, applied, operatorAccount } = useCarrierApi(gateway);

  /** An account with ENTITY (its chain declared: TM, then the operator's) and BARE_ENTITY (none). */
  async function account(): Promise<TestAccount> {
    const made = await buildAccount(gateway(), { credits: { sms: 100 } });
    const operator = await operatorAccount();
    const op = (method: string, path: string, json?: unknown) => operatorCall(gateway(), operator, method, path, json);
    for (const entity_id of [ENTITY, BARE_ENTITY]) {
      await op("POST", `/accounts/${made.username}/dlt/entities`, { entity_id });
    }
    await op("PUT", `/accounts/${made.username}/dlt/chains`, { entity_id: ENTITY, chain: [TM] });
    return made;
  }
  /** As a chain declared while DLT_TM_ID was unset (or by a CLI without it) is stored: without it. */
  async function declaredBeforeTmId(who: TestAccount, chain: string): Promise<void> {
    await gateway()
      .db.store.db.updateTable("dlt_entities")
      .set({ tm_chain: chain })
      .where("account_id", "=", who.id)
      .where("entity_id", "=", ENTITY)
      .execute();
  }
  const send = (who: TestAccount, entity: string) =>
    sendSms(gateway(), who, {
      sender_id: "SWBRD",
      recipient: "9876543210",
      message: "Your OTP is 4321",
      dlt_entity_id: entity,
    });

  it("sends the chain in the TLV and the format each SMPP connector names, and none where there is nothing to send", async () => {
    const server = await fakeSmsc();
    const definition = (name: string, tags: Record<string, unknown> | undefined) =>
      smppDefinition(name, server, tags ? { dlt_tags: tags } : {});
    const who = await account();
    const cases: Array<[Record<string, unknown> | undefined, string, Record<number, string>]> = [
      [
        { entity_id: 0x1400, template_id: 0x1401, tm_chain: { tag: 0x1402, format: "ids" } },
        ENTITY,
        { 5120: ENTITY, 5122: CHAIN },
      ],
      [
        { entity_id: 0x1400, template_id: 0x1401, tm_chain: { tag: 0x1500, format: "hash" } },
        ENTITY,
        { 5120: ENTITY, 5376: sha256(CHAIN) },
      ],
      [
        { entity_id: 0x1400, template_id: 0x1401, tm_chain: { tag: 0x1402, format: "ids" } },
        BARE_ENTITY,
        { 5120: BARE_ENTITY },
      ],
      [undefined, ENTITY, { 5120: ENTITY }],
    ];
    for (const [i, [tags, entity, tlvs]] of cases.entries()) {
      const name = `smsc-chain-${i}`;
      expect((await admin("PUT", `/carriers/${name}`, definition(name, tags))).status).toBe(201);
      expect((await admin("PUT", "/routes", { route: "T", prefix: "", connectors: [{ name }] })).status).toBeLessThan(
        300,
      );
      await applied();
      const before = server.submits.length;
      expect((await send(who, entity)).status).toBe(200);
      await until(() => server.submits.length === before + 1, 10_000);
      expect(server.submits.at(-1)!.tlvs, JSON.stringify(tags)).toEqual(tlvs);
    }
    const clash = await admin(
      "PUT",
      "/carriers/smsc-clash",
      definition("smsc-clash", { entity_id: 0x1400, template_id: 0x1401, tm_chain: { tag: 0x1401, format: "ids" } }),
    );
    expect(clash.status).toBe(400);
    expect(clash.body.message ?? clash.body.error.message).toContain("dlt_tags.tm_chain.tag must differ");
  });

  it("sends a chain declared before DLT_TM_ID was set with the operator's TM ID last, over SMPP and http-sms", async () => {
    const server = await fakeSmsc();
    const aggregator = await new FakeAggregator().start();
    running.push(aggregator);
    const tags = { entity_id: 0x1400, template_id: 0x1401, tm_chain: { tag: 0x1402, format: "ids" } };
    expect(
      (await admin("PUT", "/carriers/smsc-old-chain", smppDefinition("smsc-old-chain", server, { dlt_tags: tags })))
        .status,
    ).toBe(201);
    const http = aggregatorDefinition(aggregator.url, "agg-old-chain", {
      url: `${aggregator.url}/api/send?to={to}&text={text}&chain={dlt_tm_chain}&hash={dlt_tm_chain_hash}&dlr={callback_url}`,
    });
    expect((await admin("PUT", "/carriers/agg-old-chain", http)).status).toBe(201);
    const who = await account();
    await declaredBeforeTmId(who, TM);
    for (const name of ["smsc-old-chain", "agg-old-chain"]) {
      expect((await admin("PUT", "/routes", { route: "T", prefix: "", connectors: [{ name }] })).status).toBeLessThan(
        300,
      );
      await applied();
      expect((await send(who, ENTITY)).status).toBe(200);
    }
    await until(() => server.submits.length === 1 && aggregator.requests.length === 1, 10_000);
    expect(server.submits[0]!.tlvs[0x1402]).toBe(CHAIN);
    expect(aggregator.requests[0]!.query.get("chain")).toBe(CHAIN);
    expect(aggregator.requests[0]!.query.get("hash")).toBe(sha256(CHAIN));
    // Stored already ending with it (declared while it was set): carried once, not twice.
    const other = await account();
    for (const _ of [1, 2]) expect((await send(other, ENTITY)).status).toBe(200);
    await until(() => aggregator.requests.length === 3, 10_000);
    expect(aggregator.requests.slice(1).map((r) => r.query.get("chain"))).toEqual([CHAIN, CHAIN]);
  });

  it("fills {dlt_tm_chain} and {dlt_tm_chain_hash} of an http-sms aggregator, empty without a chain", async () => {
    const aggregator = await new FakeAggregator().start();
    running.push(aggregator);
    const definition = aggregatorDefinition(aggregator.url, "agg-chain", {
      url: `${aggregator.url}/api/send?to={to}&text={text}&pe={dlt_entity_id}&chain={dlt_tm_chain}&hash={dlt_tm_chain_hash}&dlr={callback_url}`,
    });
    expect((await admin("PUT", "/carriers/agg-chain", definition)).status).toBe(201);
    expect(
      (await admin("PUT", "/routes", { route: "*", prefix: "", connectors: [{ name: "agg-chain" }] })).status,
    ).toBe(201);
    await applied();
    const who = await account();
    await send(who, ENTITY);
    await until(() => aggregator.requests.length === 1, 10_000);
    expect(aggregator.requests[0]!.query.get("chain")).toBe(CHAIN);
    expect(aggregator.requests[0]!.query.get("hash")).toBe(sha256(CHAIN));
    await send(who, BARE_ENTITY);
    await until(() => aggregator.requests.length === 2, 10_000);
    expect(aggregator.requests[1]!.query.get("chain")).toBe("");
    expect(aggregator.requests[1]!.query.get("hash")).toBe("");
    // A new chain reaches the next send at once.
    await operatorCall(gateway(), await operatorAccount(), "PUT", `/accounts/${who.username}/dlt/chains`, {
      entity_id: ENTITY,
      chain: ["1702000000000000012", TM],
    });
    await send(who, ENTITY);
    await until(() => aggregator.requests.length === 3, 10_000);
    expect(aggregator.requests[2]!.query.get("chain")).toBe(`${ENTITY},1702000000000000012,${TM},${OPERATOR_TM}`);
  });
});
