// The reads that answer for an account below the caller name the accounts between, top first
// (`subaccount_via`), through the real server on both engines: a message's page, and the messages,
// refusals, SMPP binds and sub-accounts with ?subaccount=. A direct sub-account's is [], the caller's own has
// none, and a sub-account reading its own child never learns a name above itself. A name outside
// the tree is the same 404 as before, with no levels.
import { expect, it } from "vitest";
import { describeEnginesTogether } from "../../helpers/engines.js";
import { call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { resellerTree, subAccount } from "../../helpers/resellers.js";
import { FAST_SIMULATOR, keyOf, sendSms } from "../../helpers/sms.js";

const get = (t: TestGateway, account: TestAccount, path: string) => call(t, "GET", path, { headers: keyOf(account) });

async function sent(t: TestGateway, account: TestAccount, recipient: string): Promise<string> {
  const answer = await sendSms(t, account, { sender_id: "SWBRD", recipient, message: "Code 4321", route: "T" });
  expect(answer.status, answer.text).toBe(200);
  return answer.body.data.message_id;
}

/** The levels each read about `account` names, read by `reader`: the message's page first, then the lists. */
async function levelsRead(t: TestGateway, reader: TestAccount, account: TestAccount, message: string) {
  const page = await get(t, reader, `/api/v2/messages/${message}`);
  const lists = await Promise.all(
    ["messages", "refusals", "smpp/binds", "subaccounts"].map((list) =>
      get(t, reader, `/api/v2/${list}?subaccount=${account.username}`),
    ),
  );
  for (const answer of [page, ...lists]) expect(answer.status, answer.text).toBe(200);
  expect(page.body.data.subaccount).toBe(account.username);
  const [messages, refusals, binds, subaccounts] = lists;
  return {
    levels: [
      page.body.data.subaccount_via,
      messages!.body.subaccount_via,
      refusals!.body.subaccount_via,
      binds!.body.data.subaccount_via,
      subaccounts!.body.subaccount_via,
    ],
    texts: [page, ...lists].map((answer) => answer.text),
  };
}

describeEnginesTogether("the accounts between a reader and its sub-account", (engine) => {
  const gateway = useTestGateway(engine, { env: FAST_SIMULATOR });

  it("are named top first on a message's page and the lists, never above the reader", async () => {
    const t = gateway();
    const { top, mid, leaf } = await resellerTree(t, t.clock);
    const below = await subAccount(t, leaf, {}, {});
    const leafMessage = await sent(t, leaf, "9876540041");
    const midMessage = await sent(t, mid, "9876540042");

    const every = (levels: string[]) => [levels, levels, levels, levels, levels];
    expect((await levelsRead(t, top, leaf, leafMessage)).levels).toEqual(every([mid.username]));
    expect((await levelsRead(t, top, mid, midMessage)).levels).toEqual(every([]));
    // Lists only: `below` sends nothing.
    const deep = await get(t, top, `/api/v2/messages?subaccount=${below.username}`);
    expect(deep.body.subaccount_via).toEqual([mid.username, leaf.username]);
    const fromMid = await get(t, mid, `/api/v2/refusals?subaccount=${below.username}`);
    expect(fromMid.body.subaccount_via).toEqual([leaf.username]);
    const deepTree = await get(t, top, `/api/v2/subaccounts?subaccount=${below.username}`);
    expect(deepTree.body.subaccount_via).toEqual([mid.username, leaf.username]);

    // mid reading its own child: a direct sub-account, and nothing says who is above mid.
    const midReads = await levelsRead(t, mid, leaf, leafMessage);
    expect(midReads.levels).toEqual(every([]));
    for (const text of midReads.texts) expect(text).not.toContain(top.username);

    // The caller's own answers carry no levels, a blank ?subaccount= included.
    const own = [
      await get(t, leaf, `/api/v2/messages/${leafMessage}`),
      await get(t, top, "/api/v2/messages"),
      await get(t, top, "/api/v2/messages?subaccount=%20%20"),
      await get(t, top, "/api/v2/refusals?subaccount="),
      await get(t, top, "/api/v2/smpp/binds"),
      await get(t, top, "/api/v2/subaccounts"),
      await get(t, top, "/api/v2/subaccounts?subaccount=%20"),
    ];
    for (const answer of own) {
      expect(answer.status, answer.text).toBe(200);
      expect(answer.text).not.toContain("subaccount_via");
    }

    // Upwards, sideways or unknown: the 404 it always was, with no levels.
    for (const [reader, path] of [
      [leaf, `/api/v2/messages?subaccount=${mid.username}`],
      [leaf, `/api/v2/refusals?subaccount=${top.username}`],
      [mid, `/api/v2/smpp/binds?subaccount=${mid.username}`],
      [leaf, `/api/v2/subaccounts?subaccount=${top.username}`],
      [top, "/api/v2/messages?subaccount=nosuch"],
      [leaf, `/api/v2/messages/${midMessage}`],
    ] as const) {
      const answer = await get(t, reader, path);
      expect(answer.status, `${reader.username} ${path}`).toBe(404);
      expect(answer.body.error.code).toBe("not_found");
      expect(answer.text).not.toContain("subaccount_via");
    }
  });
});
