// The operator's choice of an account's price (PATCH /admin/api/accounts/{username} `price_card`,
// `accounts set --price-card`): a card by name, `default` the built-in one, or none. A
// sub-account's card is held to its parent's price as a parent's choice is (decision 0149) and
// replaces its markup; none puts it back on its parent's price with its markup (decision 0165).
import type { Clock } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import type { Account } from "../../base/store/schema.js";
import { moveVersion } from "../../base/store/setting-versions.js";
import type { Db, Store } from "../../base/store/store.js";
import { getAccount, requireAccount } from "./accounts.js";
import {
  DEFAULT_CARD,
  findPriceCard,
  markupPercent,
  PRICE_CARDS_CHANGED,
  PRICE_CARDS_VERSION_KEY,
  pricedBy,
} from "./price-cards.js";
import { assertNotBelowParent } from "./subaccount-prices.js";

/** What an account is priced by, as its detail and its audit entry name it. */
export interface PricedBy {
  /** The card, or for a sub-account without one `parent+<markup>%`. */
  price_card: string;
  /** Only when it changed: a sub-account's markup in per cent (null without one). */
  markup_percent?: number | null;
}

type Pricing = Pick<Account, "price_card" | "markup_bp">;

/**
 * Puts the account on `card` (any case; `default` the built-in card; null or "" none: for a
 * sub-account its parent's price with its markup). A sub-account's card may price no unit below its
 * parent's price (400 naming price_card, nothing changed) and clears its markup; an unknown card
 * is not_found. `also` (the audit entry) runs in the same transaction, given what the account was
 * and is priced by; a change to what it already is writes nothing. Answers the card it is priced by.
 */
export async function setAccountPriceCard(
  store: Store,
  clock: Clock,
  username: string,
  card: string | null,
  also?: (trx: Db, accountId: number, before: PricedBy, after: PricedBy) => Promise<void>,
): Promise<string> {
  const account = await requireAccount(store.db, username);
  const now = clock.now().getTime();
  const next = await askedPricing(store.db, account, card?.trim() ?? "", now);
  if (next.price_card === account.price_card && next.markup_bp === account.markup_bp) return pricedBy(account);
  const after = { ...account, ...next };
  const markupChanged = next.markup_bp !== account.markup_bp;
  await store.transaction(async (trx) => {
    await trx
      .updateTable("accounts")
      .set({ ...next, updated_at: now })
      .where("id", "=", account.id)
      .execute();
    await moveVersion(trx, PRICE_CARDS_VERSION_KEY, now);
    await also?.(
      trx,
      account.id,
      { price_card: pricedBy(account), ...(markupChanged ? { markup_percent: markupPercent(account.markup_bp) } : {}) },
      { price_card: pricedBy(after), ...(markupChanged ? { markup_percent: markupPercent(next.markup_bp) } : {}) },
    );
  });
  await store.signals.notify(PRICE_CARDS_CHANGED).catch(() => undefined);
  return pricedBy(after);
}

/**
 * The card an account may be put on, by a name given in any case: `default` (the built-in card),
 * or an operator's card as it is named; undefined when there is none by that name.
 */
export async function cardNamed(db: Db, given: string): Promise<string | undefined> {
  return given.trim().toLowerCase() === DEFAULT_CARD ? DEFAULT_CARD : (await findPriceCard(db, given))?.name;
}

/** The stored pricing `given` asks for, checked. */
async function askedPricing(db: Db, account: Account, given: string, now: number): Promise<Pricing> {
  const parentId = account.parent_id;
  if (given === "") {
    // No card: an account without parent is on the built-in card, a sub-account on its parent's
    // price with the markup it has (0, stored, when a card had cleared it).
    const leavesCard = parentId !== null && account.price_card !== null;
    return { price_card: null, markup_bp: leavesCard ? (account.markup_bp ?? 0) : account.markup_bp };
  }
  const name = (await cardNamed(db, given)) ?? unknownCard(given);
  if (parentId === null) return { price_card: name === DEFAULT_CARD ? null : name, markup_bp: account.markup_bp };
  await assertNotBelowParent(db, parentId, name, now, (await getAccount(db, parentId))?.username);
  return { price_card: name, markup_bp: null };
}

function unknownCard(name: string): never {
  throw new GatewayError("not_found", `No price card named "${name.slice(0, 70)}": import it first (prices import).`, {
    field: "price_card",
  });
}
