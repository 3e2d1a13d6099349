// A reseller tree for tests: a customer on a card (SMS T at 0.5), its sub-account at +10 %
// (0.55) and that one's at +12.5 % (0.61875, charged 0.619), each made and funded through
// /api/v2/subaccounts; wallets read in milli-credits; the ledger audit at every level.
import { expect } from "vitest";
import type { Clock } from "../../src/base/core/clock.js";
import type { Wallet } from "../../src/base/core/credits.js";
import {
  addSenderId,
  ledgerSum,
  parsePriceCsv,
  replacePriceCard,
  setAccountPriceCard,
} from "../../src/domain/accounts/index.js";
import { buildAccount, call, type TestAccount, type TestGateway } from "./gateway.js";
import { keyOf } from "./sms.js";

export type Credits = Partial<Record<Wallet, number>>;

export async function milli(t: TestGateway, accountId: number, wallet = "sms"): Promise<number> {
  const row = await t.db.store.db
    .selectFrom("wallets")
    .select("balance")
    .where("account_id", "=", accountId)
    .where("wallet", "=", wallet)
    .executeTakeFirstOrThrow();
  return Number(row.balance);
}

/** Every wallet of every account equals the sum of its ledger entries. */
export async function auditLedger(t: TestGateway): Promise<void> {
  const wallets = await t.db.store.db.selectFrom("wallets").selectAll().execute();
  for (const wallet of wallets) {
    const sum = await ledgerSum(t.db.store.db, wallet.account_id, wallet.wallet as Wallet);
    expect(sum, `account ${wallet.account_id} ${wallet.wallet}`).toBe(Number(wallet.balance));
  }
}

/** A sub-account of `parent` made through v2, funded by it, with a key and an approved sender ID. */
export async function subAccount(
  t: TestGateway,
  parent: TestAccount,
  body: { price_card?: string; markup_percent?: number } = {},
  credits: Credits = { sms: 100 },
): Promise<TestAccount> {
  const username = `sub_${Math.random().toString(36).slice(2, 10)}`;
  const password = "sub-account-pw";
  const created = await call(t, "POST", "/api/v2/subaccounts", {
    headers: keyOf(parent),
    json: { username, password, ...body },
  });
  expect(created.status, created.text).toBe(201);
  const key = await call(t, "POST", `/api/v2/subaccounts/${username}/keys`, { headers: keyOf(parent), json: {} });
  expect(key.status, key.text).toBe(201);
  expect(key.body.data.api_key).toMatch(/^sb_/);
  for (const [wallet, amount] of Object.entries(credits)) {
    const funded = await call(t, "POST", `/api/v2/subaccounts/${username}/credits`, {
      headers: keyOf(parent),
      json: { wallet, amount },
    });
    expect(funded.status, funded.text).toBe(200);
  }
  const { id } = await t.db.store.db
    .selectFrom("accounts")
    .select("id")
    .where("username", "=", username)
    .executeTakeFirstOrThrow();
  await t.db.store.db.updateTable("accounts").set({ dlt_scrubbing: 0 }).where("id", "=", id).execute();
  await addSenderId(t.db.store.db, t.clock, id, "SWBRD", { approve: true });
  return { id, username, password, apiKey: key.body.data.api_key };
}

/** top (card: SMS T at 0.5) → mid (+10 %) → leaf (+12.5 %), each level's wallets as given. */
export async function resellerTree(
  t: TestGateway,
  clock: Clock,
  balances: { top?: Credits; mid?: Credits; leaf?: Credits } = {},
) {
  await replacePriceCard(t.db.store, clock, "wholesale", parsePriceCsv("channel,route,prefix,price\nsms,T,*,0.5"));
  const top = await buildAccount(t, { credits: balances.top ?? { sms: 1000 } });
  await setAccountPriceCard(t.db.store, clock, top.username, "wholesale");
  const mid = await subAccount(t, top, { markup_percent: 10 }, balances.mid ?? { sms: 100 });
  const leaf = await subAccount(t, mid, { markup_percent: 12.5 }, balances.leaf ?? { sms: 100 });
  return { top, mid, leaf };
}
