// A parent's changes to its direct sub-accounts: making one, and changing its price (a card of the
// operator's, or the parent's price marked up) or its status. A card is named in any case and must
// be one readers see (findPriceCard), and must price no unit below what it costs the parent
// (subaccount-prices.ts, decision 0149). A parent suspends a sub-account by making it `inactive`:
// the status an operator's `inactive` is, so it stops the sub-account's tree as decision 0148 does;
// an account the operator `blocked` is the operator's to lift.

import { GatewayError } from "../../base/core/errors.js";
import type { Account, AccountStatus } from "../../base/store/schema.js";
import { moveVersion } from "../../base/store/setting-versions.js";
import type { Db, Store } from "../../base/store/store.js";
import { type Audited, recordChange } from "../audit/index.js";
import { accountCredentialsChanged } from "../auth/index.js";
import { createAccount } from "./accounts.js";
import { subAccountsCredentialsChanged } from "./credentials.js";
import { markupPercent, PRICE_CARDS_CHANGED, PRICE_CARDS_VERSION_KEY } from "./price-cards.js";
import { cardNamed } from "./price-setting.js";
import { markupBasisPoints, requireSubAccount } from "./resellers.js";
import { assertNotBelowParent } from "./subaccount-prices.js";

export interface NewSubAccount {
  username: string;
  password: string;
  priceCard?: string;
  markupPercent?: number;
}

/** A sub-account's price: its own card, or (price_card null) its parent's price with the markup. */
interface Pricing {
  price_card: string | null;
  markup_bp: number | null;
}

/**
 * The pricing a parent asks for its sub-account, checked: one of a card or a markup; a card the
 * operator has (named in any case, stored as the card is named) that prices no unit below the
 * parent's own price. Undefined when neither is given.
 */
async function askedPricing(
  db: Db,
  parentId: number,
  now: number,
  input: { priceCard?: string | undefined; markupPercent?: number | undefined },
): Promise<Pricing | undefined> {
  if (input.priceCard !== undefined && input.markupPercent !== undefined) {
    throw new GatewayError(
      "invalid_request",
      "Give price_card (the sub-account's own card) or markup_percent (your price marked up), not both.",
      { field: "price_card" },
    );
  }
  if (input.markupPercent !== undefined) return { price_card: null, markup_bp: markupBasisPoints(input.markupPercent) };
  if (input.priceCard === undefined) return undefined;
  const given = input.priceCard.trim();
  const name = await cardNamed(db, given);
  if (name === undefined) {
    throw new GatewayError("invalid_request", `No price card named "${given.slice(0, 70)}".`, { field: "price_card" });
  }
  await assertNotBelowParent(db, parentId, name, now);
  return { price_card: name, markup_bp: null };
}

/** A parent's new sub-account: a customer with its parent's time zone and routes, wallets at 0. */
export async function createSubAccount(store: Store, who: Audited, parent: Account, input: NewSubAccount) {
  const { clock } = who;
  if (parent.role !== "customer") {
    throw new GatewayError("forbidden", "Only customer accounts have sub-accounts.");
  }
  const pricing = await askedPricing(store.db, parent.id, clock.now().getTime(), input);
  return createAccount(
    store,
    clock,
    {
      username: input.username,
      password: input.password,
      timeZone: parent.time_zone,
      routes: parent.routes.split(","),
      parentId: parent.id,
      ...(pricing?.price_card ? { priceCard: pricing.price_card } : {}),
      ...(pricing?.markup_bp != null ? { markupBp: pricing.markup_bp } : {}),
    },
    (trx, created) => {
      const after = {
        parent: parent.username,
        price_card: pricing?.price_card ?? null,
        markup_percent: input.markupPercent ?? null,
      };
      return recordChange(trx, who, {
        action: "account.create",
        target: `account ${created.username}`,
        accountId: created.id,
        after,
      });
    },
  );
}

/** What a parent may change of its sub-account. */
export interface SubAccountChanges {
  priceCard?: string | undefined;
  markupPercent?: number | undefined;
  /** `suspended` is stored as `inactive`. */
  status?: "active" | "suspended" | "inactive" | undefined;
}

type Shown = { price_card?: string | null; markup_percent?: number | null; status?: string };

/**
 * Changes the parent's direct sub-account `username` (not_found for any other), audited as
 * `subaccount.update` with the fields that changed, before and after; nothing written when none did.
 */
export async function updateSubAccount(
  store: Store,
  who: Audited,
  parent: Pick<Account, "id">,
  username: string,
  changes: SubAccountChanges,
): Promise<Account> {
  const sub = await requireSubAccount(store.db, parent.id, username);
  if (changes.priceCard === undefined && changes.markupPercent === undefined && changes.status === undefined) {
    throw new GatewayError("invalid_request", "Give price_card, markup_percent or status to change.");
  }
  const now = who.clock.now().getTime();
  const pricing = await askedPricing(store.db, parent.id, now, changes);
  const status: AccountStatus | undefined =
    changes.status === undefined ? undefined : changes.status === "active" ? "active" : "inactive";
  if (status !== undefined && status !== sub.status && sub.status === "blocked") {
    throw new GatewayError(
      "forbidden",
      `The sub-account "${sub.username}" is blocked by the operator; only the operator can change its status.`,
      { field: "status" },
    );
  }
  const before: Shown = {};
  const after: Shown = {};
  const set: Partial<Account> = {};
  if (pricing && (pricing.price_card !== sub.price_card || pricing.markup_bp !== sub.markup_bp)) {
    Object.assign(set, pricing);
    if (pricing.price_card !== sub.price_card) {
      before.price_card = sub.price_card;
      after.price_card = pricing.price_card;
    }
    if (pricing.markup_bp !== sub.markup_bp) {
      before.markup_percent = markupPercent(sub.markup_bp);
      after.markup_percent = markupPercent(pricing.markup_bp);
    }
  }
  if (status !== undefined && status !== sub.status) {
    set.status = status;
    before.status = sub.status;
    after.status = status;
  }
  if (Object.keys(set).length === 0) return sub;
  const priced = "price_card" in set;
  const updated = await store.transaction(async (trx) => {
    const row = await trx
      .updateTable("accounts")
      .set({ ...set, updated_at: now })
      .where("id", "=", sub.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    if (priced) await moveVersion(trx, PRICE_CARDS_VERSION_KEY, now);
    await recordChange(trx, who, {
      action: "subaccount.update",
      target: `account ${sub.username}`,
      accountId: sub.id,
      before,
      after,
    });
    return row;
  });
  if (priced) await store.signals.notify(PRICE_CARDS_CHANGED).catch(() => undefined);
  if (set.status !== undefined) {
    // Its own credentials, and its sub-accounts' at every depth, act with the new status (decision 0148).
    await accountCredentialsChanged(store, sub.id);
    await subAccountsCredentialsChanged(store, sub.id);
  }
  return updated;
}
