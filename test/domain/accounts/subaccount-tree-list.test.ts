// GET /api/v2/subaccounts through the real server on both engines: each sub-account counts its own
// sub-accounts, and `?subaccount=` lists those of an account below the caller at any depth (the
// top reads its grandchild's), read only: managing stays with the parent. Another tree's account,
// a sibling's, the caller's own or its parent's is the same 404 as an unknown name; bad input 400.
import { expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { resellerTree, subAccount } from "../../helpers/resellers.js";
import { keyOf } from "../../helpers/sms.js";

const get = (t: TestGateway, account: TestAccount, path: string) => call(t, "GET", path, { headers: keyOf(account) });
const names = (answer: { body: { data: { username: string }[] } }) => answer.body.data.map((row) => row.username);

describeEachEngine("a reseller lists the sub-accounts of its tree", (engine) => {
  const gateway = useTestGateway(engine, { roles: ["api"] });

  it("counts each row's sub-accounts and lists a grandchild's, never another tree's", async () => {
    const t = gateway();
    const { top, mid, leaf } = await resellerTree(t, t.clock);
    const sibling = await subAccount(t, mid);
    const great = await subAccount(t, leaf, { markup_percent: 5 });
    const other = await buildAccount(t);
    const otherSub = await subAccount(t, other);

    const own = await get(t, top, "/api/v2/subaccounts");
    expect(own.status, own.text).toBe(200);
    expect(own.body.data).toEqual([expect.objectContaining({ username: mid.username, subaccounts: 2 })]);
    const mids = await get(t, top, `/api/v2/subaccounts?subaccount=${mid.username.toUpperCase()}`);
    expect(mids.status, mids.text).toBe(200);
    expect(
      mids.body.data.map((row: { username: string; subaccounts: number }) => [row.username, row.subaccounts]),
    ).toEqual([
      [leaf.username, 1],
      [sibling.username, 0],
    ]);
    expect(mids.body.data[0]).toMatchObject({ markup_percent: 12.5, price_card: null, balances: { sms: 100 } });
    expect(mids.body.meta).toMatchObject({ total: 2, page: 1 });
    const leafs = await get(t, top, `/api/v2/subaccounts?subaccount=${leaf.username}&per_page=1`);
    expect(leafs.status, leafs.text).toBe(200);
    expect(leafs.body.data).toEqual([
      expect.objectContaining({ username: great.username, subaccounts: 0, markup_percent: 5, below_parent: null }),
    ]);
    expect(names(await get(t, mid, `/api/v2/subaccounts?subaccount=${leaf.username}`))).toEqual([great.username]);
    expect(names(await get(t, leaf, "/api/v2/subaccounts"))).toEqual([great.username]);
    expect(names(await get(t, great, "/api/v2/subaccounts"))).toEqual([]);

    // Read only below the first level: the grandchild is managed by its own parent.
    const key = await call(t, "POST", `/api/v2/subaccounts/${great.username}/keys`, { headers: keyOf(top), json: {} });
    expect(key.status, key.text).toBe(404);

    const probes: [TestAccount, string][] = [
      [top, otherSub.username],
      [other, mid.username],
      [other, leaf.username],
      [sibling, leaf.username],
      [leaf, mid.username],
      [great, top.username],
      [top, top.username],
      [top, "nosuch"],
      [top, String(leaf.id)],
    ];
    for (const [reader, name] of probes) {
      const answer = await get(t, reader, `/api/v2/subaccounts?subaccount=${name}`);
      expect(answer.status, `${reader.username} ?subaccount=${name}`).toBe(404);
      expect(answer.body).toMatchObject({
        status: "error",
        message: `No sub-account named "${name}" under this account.`,
        error: { code: "not_found" },
      });
    }
  });

  it("refuses bad input in the v2 dialect", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const nul = await get(t, account, "/api/v2/subaccounts?subaccount=a%00b");
    expect(nul.status, nul.text).toBe(400);
    expect(nul.body).toMatchObject({ status: "error", error: { code: "invalid_request", field: "subaccount" } });
    const long = await get(t, account, `/api/v2/subaccounts?subaccount=${"x".repeat(65)}`);
    expect(long.status, long.text).toBe(400);
    expect(long.body).toMatchObject({ status: "error", error: { code: "invalid_request" } });
    const unknown = await get(t, account, "/api/v2/subaccounts?parent=x");
    expect(unknown.status, unknown.text).toBe(400);
    const page = await get(t, account, "/api/v2/subaccounts?page=abc");
    expect(page.status, page.text).toBe(400);
  });
});
