// A sub-account's send refused because an account above it is short (audit F12, decision 0158),
// through the real server on both engines (v2, legacy and SMPP sends): the sub-account is
// answered, and reads in its log of refusals, only "Credit not available." (white label, decision
// 0150); the short parent reads in its sub-account's refusals which account is short and by how
// much; the operator reads it for any level; a parent does not learn of an account above it that
// is short. An account's own wallet short reads its words to every reader (decision 0192).
import { expect, it } from "vitest";
import { setSmppSettings } from "../../../src/channels/smpp-server/index.js";
import { boundEsme } from "../../channels/smpp-server/client.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { legacy, sendParams } from "../../helpers/legacy.js";
import { resellerTree } from "../../helpers/resellers.js";

const PLAIN = "Credit not available.";

describeEachEngine("a refusal a parent is short for", (engine) => {
  const gateway = useTestGateway(engine, { env: { SMPP_SERVER_PORT: "auto" } });
  const bearer = (account: TestAccount) => ({ authorization: `Bearer ${account.apiKey}` });

  async function reasons(t: TestGateway, path: string, headers: Record<string, string>) {
    await t.gateway.ctx.refusals.flush();
    const answer = await call(t, "GET", path, { headers });
    expect(answer.status, answer.text).toBe(200);
    return (answer.body.data as { code: string; reason: string }[]).map((r) => [r.code, r.reason]);
  }

  const send = (t: TestGateway, account: TestAccount) =>
    call(t, "POST", "/api/v2/sms/send", {
      headers: bearer(account),
      json: { sender_id: "SWBRD", recipient: "9876530099", message: "Code 2", route: "transactional" },
    });

  it("names the short parent to the operator and the parent, never to the sub-account", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    // mid is short: leaf's send needs its parent's credits too.
    const { mid, leaf } = await resellerTree(t, t.clock, { mid: {}, leaf: { sms: 20 } });

    const refused = await send(t, leaf);
    expect(refused.status, refused.text).toBe(402);
    expect(refused.body).toMatchObject({ message: PLAIN, error: { code: "insufficient_credits" } });
    expect(refused.text).not.toContain(mid.username);
    const plainText = await legacy(t, "/httpapi/send", sendParams(leaf, { phonenumber: "9876530099" }));
    expect(plainText.text.trim()).toBe("-12");
    await setSmppSettings(t.db.store, t.clock, leaf.username, { password: "smpp-pw1", submitsPerSecond: 0 });
    const esme = await boundEsme(t, { ...leaf, smppPassword: "smpp-pw1" });
    const submitted = await esme.submit({
      source_addr: "SWBRD",
      destination_addr: "9876530099",
      short_message: "Code 4",
    });
    esme.destroy();
    expect(submitted.command_status).not.toBe(0);

    const why = `Credit not available at the parent account ${mid.username}: its sms wallet holds 0, the send needs 0.55.`;
    // The sub-account: the plain words, for both families.
    expect(await reasons(t, "/api/v2/refusals", bearer(leaf))).toEqual(Array(3).fill(["insufficient_credits", PLAIN]));
    // The short parent, on its sub-account's refusals.
    expect(await reasons(t, `/api/v2/refusals?subaccount=${leaf.username}`, bearer(mid))).toEqual(
      Array(3).fill(["insufficient_credits", why]),
    );
    // The operator.
    expect(await reasons(t, `/admin/api/refusals?account=${leaf.username}`, bearer(operator))).toEqual(
      Array(3).fill(["insufficient_credits", why]),
    );
  });

  it("tells a parent nothing of a short account above it; the operator reads which", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const { top, mid, leaf } = await resellerTree(t, t.clock, { top: {} });

    expect((await send(t, leaf)).status).toBe(402);
    expect(await reasons(t, "/api/v2/refusals", bearer(leaf))).toEqual([["insufficient_credits", PLAIN]]);
    expect(await reasons(t, `/api/v2/refusals?subaccount=${leaf.username}`, bearer(mid))).toEqual([
      ["insufficient_credits", PLAIN],
    ]);
    expect(await reasons(t, `/admin/api/refusals?account=${leaf.username}`, bearer(operator))).toEqual([
      [
        "insufficient_credits",
        `Credit not available at the account 2 levels above, ${top.username}: its sms wallet holds 0, the send needs 0.5.`,
      ],
    ]);
  });

  it("says what the account's own wallet holds and what the send needed, to every reader, and answers plainly", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    // leaf's own wallet is short (0.25 against its price, 0.5 marked up twice); its parents hold plenty.
    const { mid, leaf } = await resellerTree(t, t.clock, { leaf: { sms: 0.25 } });
    const refused = await send(t, leaf);
    expect(refused.status, refused.text).toBe(402);
    expect(refused.body).toMatchObject({ message: PLAIN, error: { code: "insufficient_credits" } });
    expect(refused.text).not.toContain("0.25");
    const plainText = await legacy(t, "/httpapi/send", sendParams(leaf, { phonenumber: "9876530099" }));
    expect(plainText.text.trim()).toBe("-12");

    const own = [
      "insufficient_credits",
      expect.stringMatching(/^Credit not available: the sms wallet holds 0\.25, the send needs 0\.6\d*\.$/),
    ];
    for (const [path, reader] of [
      ["/api/v2/refusals", leaf],
      [`/api/v2/refusals?subaccount=${leaf.username}`, mid],
      [`/admin/api/refusals?account=${leaf.username}`, operator],
    ] as const) {
      expect(await reasons(t, path, bearer(reader)), path).toEqual([own, own]);
    }
    // An account of no tree reads its own wallet's words too; a wallet it was never given holds 0.
    const alone = await buildAccount(t, { credits: { sms: 0 } });
    expect((await send(t, alone)).status).toBe(402);
    expect(await reasons(t, "/api/v2/refusals", bearer(alone))).toEqual([
      [
        "insufficient_credits",
        expect.stringMatching(/^Credit not available: the sms wallet holds 0, the send needs [0-9.]+\.$/),
      ],
    ]);
  });
});
