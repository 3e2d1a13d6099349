// The telemarketer chain an SMPP client sends (TLV 0x1402) on a gateway without DLT_TM_ID (audit
// S3), over loopback with a raw client: the whole declared chain is required (as IDs or their
// hash); a chain that leaves out its last TM, an empty TLV or one of NULs only, and the TLV sent
// twice in one submit are refused 0x40D and charged nothing. An entity without a declared chain
// ignores an empty TLV, but not a repeated one. With DLT_TM_ID set, only that ID may be left out:
// test/channels/sms/dlt-chains.test.ts.
import { createHash } from "node:crypto";
import { expect, it } from "vitest";
import { encodePdu } from "../../../src/base/smpp/index.js";
import { STATUS } from "../../../src/channels/smpp-server/status.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { operatorCall } from "../../helpers/legacy.js";
import { countDebits } from "../../helpers/sms-families.js";
import { type SmppAccount, smppAccount, smppPort } from "./client.js";
import { BIND_TRANSMITTER, RawClient, SUBMIT_SM, submitBody, tlv } from "./raw-client.js";

const ENTITY = "1101160000000000071";
const TM1 = "1702000000000000001";
const TM2 = "1702000000000000002";
const CHAIN_TAG = 0x1402;

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const chainTlv = (value: string | Buffer) => tlv(CHAIN_TAG, typeof value === "string" ? Buffer.from(value) : value);

describeEachEngine("SMPP server: the client's telemarketer chain without DLT_TM_ID", (engine) => {
  const gateway = useTestGateway(engine, { env: { SMPP_SERVER_PORT: "auto", SIMULATOR_LATENCY_MS: "20" } });
  let sequence = 10;

  async function dltAccount(t: TestGateway, chain: string[] | undefined): Promise<SmppAccount> {
    const operator: TestAccount = await buildAccount(t, { role: "operator", sender: null });
    const op = (method: string, path: string, json?: unknown) => operatorCall(t, operator, method, path, json);
    const account = await smppAccount(t, {}, { dltScrubbing: true, credits: { sms: 100 } });
    const u = account.username;
    await op("POST", `/accounts/${u}/dlt/headers`, { header: "SWBRD" });
    await op("POST", `/accounts/${u}/dlt/entities`, { entity_id: ENTITY });
    await op("POST", `/accounts/${u}/templates`, {
      name: "otp",
      content: "Your OTP is {#var#}.",
      entity_id: ENTITY,
      approve: true,
    });
    if (chain) {
      const declared = await op("PUT", `/accounts/${u}/dlt/chains`, { entity_id: ENTITY, chain });
      expect(declared.body.data).toMatchObject({ entity_id: ENTITY, tm_chain: chain });
    }
    return account;
  }

  async function bound(t: TestGateway, account: SmppAccount): Promise<RawClient> {
    const raw = new RawClient(smppPort(t), { answerEnquireLink: true });
    await raw.connected();
    await raw.bind(account, BIND_TRANSMITTER);
    return raw;
  }

  /** One submit_sm of the approved OTP text with `tlvs`; its command_status. */
  async function submit(raw: RawClient, ...tlvs: Buffer[]): Promise<number> {
    sequence++;
    raw.send(
      encodePdu(SUBMIT_SM, sequence, 0, Buffer.concat([submitBody("SWBRD", "9876543210", "Your OTP is 1."), ...tlvs])),
    );
    const answer = await raw.next();
    expect(answer.sequence).toBe(sequence);
    return answer.status;
  }

  it("takes only the whole declared chain: one without its last TM, an empty one and a repeated TLV are 0x40D", async () => {
    const t = gateway();
    const account = await dltAccount(t, [TM1, TM2]);
    const raw = await bound(t, account);
    const full = `${ENTITY},${TM1},${TM2}`;
    const withoutLast = `${ENTITY},${TM1}`;
    const accepted = [full, sha256(full), ` ${full.toLowerCase()} `, sha256(full).toUpperCase()];
    for (const sent of accepted) expect(await submit(raw, chainTlv(sent)), sent).toBe(0);
    expect(await submit(raw), "no TLV").toBe(0);
    const debits = await countDebits(t, account);
    const refused: [string, Buffer[]][] = [
      ["the chain without its last TM", [chainTlv(withoutLast)]],
      ["its hash", [chainTlv(sha256(withoutLast))]],
      ["an empty TLV", [chainTlv(Buffer.alloc(0))]],
      ["a lone NUL", [chainTlv(Buffer.from([0]))]],
      ["NULs only", [chainTlv(Buffer.from([0, 0, 0]))]],
      ["spaces only", [chainTlv(" \0")]],
      ["a wrong chain then the right one", [chainTlv("garbage\0"), chainTlv(`${full}\0`)]],
      ["the right chain then a wrong one", [chainTlv(`${full}\0`), chainTlv("garbage\0")]],
      ["the right chain twice", [chainTlv(`${full}\0`), chainTlv(`${full}\0`)]],
    ];
    for (const [what, tlvs] of refused) expect(await submit(raw, ...tlvs), what).toBe(STATUS.SB_DLT_CHAIN_MISMATCH);
    expect(await countDebits(t, account)).toBe(debits);
    raw.destroy();
  });

  it("ignores an empty chain for an entity without a declared chain, but refuses the TLV sent twice", async () => {
    const t = gateway();
    const account = await dltAccount(t, undefined);
    const raw = await bound(t, account);
    expect(await submit(raw, chainTlv(Buffer.from([0])))).toBe(0);
    expect(await submit(raw, chainTlv(`${ENTITY},${TM1}\0`))).toBe(0);
    expect(await submit(raw, chainTlv(`${ENTITY},${TM1}\0`), chainTlv(`${ENTITY},${TM1}\0`))).toBe(
      STATUS.SB_DLT_CHAIN_MISMATCH,
    );
    raw.destroy();
  });
});
