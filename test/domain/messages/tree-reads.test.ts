// A reseller reads its tree's messages and refused sends, through the real server on both engines:
// its sub-accounts' and theirs at any depth (top reads its grandchild leaf's), on the list
// (?subaccount=), the export, the traffic views, the refusals and one message's page (by its queue
// id alone, naming the sub-account it is of). Never another tree's, nor upwards or sideways: a
// parent's, a sibling's, another reseller's customer's are 404 `not_found`, the same answer as an
// unknown name or id (never 403), so a name or id of another tree tells nothing. A refusal a level
// between was short for reads that level's words to the reseller at or above it (decision 0158).
import { expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { resellerTree, subAccount } from "../../helpers/resellers.js";
import { FAST_SIMULATOR, keyOf, sendSms, waitForStatus } from "../../helpers/sms.js";

const get = (t: TestGateway, account: TestAccount, path: string) => call(t, "GET", path, { headers: keyOf(account) });

async function sent(t: TestGateway, account: TestAccount, recipient: string): Promise<string> {
  const answer = await sendSms(t, account, { sender_id: "SWBRD", recipient, message: "Code 4321", route: "T" });
  expect(answer.status, answer.text).toBe(200);
  return answer.body.data.message_id;
}

describeEachEngine("a reseller reads its tree's messages and refusals", (engine) => {
  const gateway = useTestGateway(engine, { env: FAST_SIMULATOR });

  it("opens a grandchild's message page and lists its messages and refusals, never another tree's", async () => {
    const t = gateway();
    const { top, mid, leaf } = await resellerTree(t, t.clock);
    const sibling = await subAccount(t, mid);
    const other = await buildAccount(t);
    const otherSub = await subAccount(t, other);
    const leafMessage = await sent(t, leaf, "9876540011");
    const midMessage = await sent(t, mid, "9876540012");
    const otherMessage = await sent(t, otherSub, "9876540013");
    await waitForStatus(t, leaf, leafMessage);
    const refused = await sendSms(t, leaf, { sender_id: "SWBRD", recipient: "12345", message: "Code 1", route: "T" });
    expect(refused.status, refused.text).toBe(422);
    await t.gateway.ctx.refusals.flush();

    // The message page, by its id alone, for each level above it; it names the sub-account.
    for (const reader of [top, mid]) {
      const page = await get(t, reader, `/api/v2/messages/${leafMessage}`);
      expect(page.status, `${reader.username}: ${page.text}`).toBe(200);
      expect(page.body.data.message.message_id).toBe(leafMessage);
      expect(page.body.data.subaccount).toBe(leaf.username);
      expect(page.body.data.cost.credits).toBe(0.619);
    }
    const own = await get(t, leaf, `/api/v2/messages/${leafMessage.toLowerCase()}`);
    expect(own.status, own.text).toBe(200);
    expect(own.body.data).not.toHaveProperty("subaccount");
    expect((await get(t, top, `/api/v2/messages/${midMessage}`)).body.data.subaccount).toBe(mid.username);

    // The grandchild's lists, read by the top of the tree.
    const list = await get(t, top, `/api/v2/messages?subaccount=${leaf.username.toUpperCase()}`);
    expect(list.status, list.text).toBe(200);
    expect(list.body.data.map((row: { message_id: string }) => row.message_id)).toEqual([leafMessage]);
    const refusals = await get(t, top, `/api/v2/refusals?subaccount=${leaf.username}`);
    expect(refusals.status, refusals.text).toBe(200);
    expect(refusals.body.data).toHaveLength(1);
    expect(refusals.body.data[0]).toMatchObject({ code: "invalid_recipient", recipients: ["12345"] });
    const exported = await get(t, top, `/api/v2/messages/export?format=jsonl&subaccount=${leaf.username}`);
    expect(exported.status, exported.text).toBe(200);
    expect(JSON.parse(exported.text.trim()).message_id).toBe(leafMessage);
    const summary = await get(t, top, `/api/v2/messages/summary?subaccount=${leaf.username}`);
    expect(summary.body.data.channels.sms.today.sent).toBe(1);
    expect((await get(t, top, `/api/v2/messages/per-minute?hours=1&subaccount=${leaf.username}`)).status).toBe(200);

    // Never upwards, sideways or into another tree: the same 404 as an unknown name or id.
    const unknownId = `q${"0".repeat(26)}`;
    const notFound = (await get(t, top, `/api/v2/messages/${unknownId}`)).body;
    const probes: [TestAccount, string][] = [
      [leaf, `/api/v2/messages/${midMessage}`],
      [sibling, `/api/v2/messages/${leafMessage}`],
      [other, `/api/v2/messages/${leafMessage}`],
      [top, `/api/v2/messages/${otherMessage}`],
      [leaf, `/api/v2/messages?subaccount=${top.username}`],
      [mid, `/api/v2/messages?subaccount=${mid.username}`],
      [sibling, `/api/v2/messages?subaccount=${leaf.username}`],
      [other, `/api/v2/messages?subaccount=${leaf.username}`],
      [other, `/api/v2/refusals?subaccount=${leaf.username}`],
      [leaf, `/api/v2/refusals?subaccount=${mid.username}`],
      [other, `/api/v2/messages/export?subaccount=${leaf.username}`],
      [other, `/api/v2/messages/summary?subaccount=${leaf.username}`],
      [top, `/api/v2/messages/per-minute?subaccount=${otherSub.username}`],
      [top, "/api/v2/refusals?subaccount=nosuch"],
    ];
    for (const [reader, path] of probes) {
      const answer = await get(t, reader, path);
      expect(answer.status, `${reader.username} ${path}`).toBe(404);
      expect(answer.body.error.code).toBe("not_found");
      // Worded as an unknown one's: nothing says the name or id exists elsewhere.
      expect(answer.body.message).toMatch(
        /^No (message with id "q\w+" in this account|sub-account named "\w+" under this account)\.$/,
      );
    }
    expect((await get(t, other, `/api/v2/messages/${leafMessage}`)).body.message).toBe(
      notFound.message.replace(unknownId, leafMessage),
    );
  });

  it("tells the short account itself, reading a grandchild's refusal, and the level between nothing", async () => {
    const t = gateway();
    // top is short: leaf's send needs every level's credits.
    const { top, mid, leaf } = await resellerTree(t, t.clock, { top: {} });
    const refused = await sendSms(t, leaf, { sender_id: "SWBRD", recipient: "9876540021", message: "x", route: "T" });
    expect(refused.status, refused.text).toBe(402);
    await t.gateway.ctx.refusals.flush();
    const reason = async (reader: TestAccount) =>
      (await get(t, reader, `/api/v2/refusals?subaccount=${leaf.username}`)).body.data[0]?.reason;
    expect(await reason(top)).toBe(
      `Credit not available at the account 2 levels above, ${top.username}: its sms wallet holds 0, the send needs 0.5.`,
    );
    expect(await reason(mid)).toBe("Credit not available.");
  });
});
