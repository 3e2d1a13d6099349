// What the operator reads of one message beyond the account's page (audit rows 10 and 18), on both
// engines through the real server and the CLI: an SMS's DLT facts as accepted (header, entity,
// the DLT template id sent, the approved template its text matched, the telemarketer chain declared
// for its entity then and what the DLT scrubbing did), and every level's charge of
// a sub-account's message (its own, its parent's, the top's); a parent's ledger names the
// sub-account whose send it paid for by username, never by its numeric id.
import { createHash } from "node:crypto";
import { expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { cliOk } from "../../helpers/cli.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { resellerTree } from "../../helpers/resellers.js";
import { keyOf, sendSms } from "../../helpers/sms.js";

const ENTITY = "1101160000000000011";
const DLT_TEMPLATE = "1107160000000000042";
/** The account's aggregator, and the operator's own TM ID (DLT_TM_ID), last of every chain carried. */
const AGGREGATOR = "1702000000000000011";
const OWN_TM = "1702000000000000099";
const CHAIN = `${ENTITY},${AGGREGATOR},${OWN_TM}`;

describeEachEngine("the operator's facts of one message", (engine) => {
  const clock = new ManualClock("2026-11-22T06:30:00Z");
  const gateway = useTestGateway(engine, { clock, env: { SIMULATOR_LATENCY_MS: "600000", DLT_TM_ID: OWN_TM } });

  const operatorOf = (t: TestGateway) => buildAccount(t, { role: "operator", sender: null });
  const admin = (t: TestGateway, operator: TestAccount, method: string, path: string, json?: unknown) =>
    call(t, method, `/admin/api${path}`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      ...(json ? { json } : {}),
    });
  const cliEnv = (t: TestGateway) => ({ DATABASE_URL: t.db.url, SQLITE_SYNCHRONOUS: "NORMAL" });

  it("names the DLT header, entity, template id, matched template, telemarketer chain and scrubbing an SMS was sent with", async () => {
    const t = gateway();
    const operator = await operatorOf(t);
    const shop = await buildAccount(t, { dltScrubbing: true });
    for (const [path, body] of [
      ["dlt/headers", { header: "SWBRD" }],
      ["dlt/entities", { entity_id: ENTITY }],
      [
        "templates",
        {
          name: "otp",
          content: "Your OTP is {#var#}.",
          entity_id: ENTITY,
          dlt_template_id: DLT_TEMPLATE,
          approve: true,
        },
      ],
    ] as const) {
      const made = await admin(t, operator, "POST", `/accounts/${shop.username}/${path}`, body);
      expect(made.status, made.text).toBeLessThan(300);
    }
    const declared = await admin(t, operator, "PUT", `/accounts/${shop.username}/dlt/chains`, {
      entity_id: ENTITY,
      chain: [AGGREGATOR],
    });
    expect(declared.status, declared.text).toBe(200);
    const sent = await sendSms(t, shop, { sender_id: "SWBRD", recipient: "9876543210", message: "Your OTP is 4821." });
    expect(sent.status, sent.text).toBe(200);
    const id = sent.body.data.message_id as string;

    const detail = await admin(t, operator, "GET", `/messages/${id}`);
    expect(detail.status, detail.text).toBe(200);
    expect(detail.body.data.dlt).toEqual({
      header: "SWBRD",
      entity_id: ENTITY,
      template_id: DLT_TEMPLATE,
      matched_template: { id: expect.any(Number), name: "otp", dlt_template_id: DLT_TEMPLATE },
      // The chain a carrier is handed, as IDs and as their SHA-256, and what the scrubbing did.
      tm_chain: CHAIN,
      tm_chain_hash: createHash("sha256").update(CHAIN).digest("hex"),
      scrubbing: "matched",
    });
    expect(detail.body.data.charges).toEqual([{ account: shop.username, credits: 1 }]);
    // The account's own answer is unchanged: the operator's facts are the operator's.
    const own = await call(t, "GET", `/api/v2/messages/${id}`, { headers: keyOf(shop) });
    expect(own.body.data).not.toHaveProperty("dlt");
    expect(own.body.data).not.toHaveProperty("charges");

    const shown = await cliOk(["messages", "show", id], cliEnv(t));
    expect(shown).toMatch(new RegExp(`^dlt\\s+header SWBRD, entity ${ENTITY}, template id ${DLT_TEMPLATE}$`, "m"));
    expect(shown).toMatch(/^template\s+otp \(#\d+\)$/m);
    expect(shown).toContain(`tm chain  ${CHAIN} (sha256 ${detail.body.data.dlt.tm_chain_hash})`);
    expect(shown).toMatch(/^scrubbing matched \(header and entity white-listed/m);
    const json = JSON.parse(await cliOk(["messages", "show", id, "--json"], cliEnv(t)));
    expect(json.dlt).toEqual(detail.body.data.dlt);

    // Once the chain is cleared, the next message says it went without one; the first keeps its own.
    const cleared = await admin(t, operator, "DELETE", `/accounts/${shop.username}/dlt/chains`, { entity_id: ENTITY });
    expect(cleared.status, cleared.text).toBe(200);
    const unchained = await sendSms(t, shop, {
      sender_id: "SWBRD",
      recipient: "9876543210",
      message: "Your OTP is 4822.",
    });
    expect(unchained.status, unchained.text).toBe(200);
    const without = await admin(t, operator, "GET", `/messages/${unchained.body.data.message_id}`);
    expect(without.body.data.dlt).toMatchObject({ entity_id: ENTITY, tm_chain: null, tm_chain_hash: null });
    expect(without.body.data.dlt.scrubbing).toBe("matched");
    expect(await cliOk(["messages", "show", unchained.body.data.message_id], cliEnv(t))).toMatch(
      /^tm chain {2}none declared$/m,
    );
    expect((await admin(t, operator, "GET", `/messages/${id}`)).body.data.dlt.tm_chain).toBe(CHAIN);

    // Without scrubbing nothing is matched, and the facts say so rather than inventing one.
    const plain = await buildAccount(t);
    const other = await sendSms(t, plain, { sender_id: "SWBRD", recipient: "9876543210", message: "Hello" });
    const plainDetail = await admin(t, operator, "GET", `/messages/${other.body.data.message_id}`);
    expect(plainDetail.body.data.dlt).toEqual({
      header: "SWBRD",
      entity_id: null,
      template_id: null,
      matched_template: null,
      tm_chain: null,
      tm_chain_hash: null,
      scrubbing: "off",
    });
  });

  it("shows every level's charge of a sub-account's message, and names the sub-account in each parent's ledger", async () => {
    const t = gateway();
    const operator = await operatorOf(t);
    const { top, mid, leaf } = await resellerTree(t, clock);
    const sent = await sendSms(t, leaf, {
      sender_id: "SWBRD",
      recipient: "9876543210",
      message: "Your OTP is 1234",
      route: "T",
    });
    expect(sent.status, sent.text).toBe(200);
    const id = sent.body.data.message_id as string;

    const detail = await admin(t, operator, "GET", `/messages/${id}`);
    expect(detail.status, detail.text).toBe(200);
    expect(detail.body.data.charges).toEqual([
      { account: leaf.username, credits: 0.619 },
      { account: mid.username, credits: 0.55 },
      { account: top.username, credits: 0.5 },
    ]);
    const shown = await cliOk(["messages", "show", id], cliEnv(t));
    expect(shown).toContain(`charged   ${leaf.username} 0.619, ${mid.username} 0.55, ${top.username} 0.5`);

    for (const parent of [mid, top]) {
      const ledger = await admin(t, operator, "GET", `/accounts/${parent.username}/ledger`);
      expect(ledger.status, ledger.text).toBe(200);
      const notes = (ledger.body.data as Array<{ kind: string; note: string | null }>)
        .filter((entry) => entry.kind === "debit")
        .map((entry) => entry.note);
      expect(notes, parent.username).toEqual([`sms message of sub-account ${leaf.username}`]);
    }
  });
});
