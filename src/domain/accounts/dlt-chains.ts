// The telemarketer chain of a DLT entity (issue 40, item 2): since December 2024 Indian operators
// drop SMS whose principal entity has no declared chain of telemarketers (PE → TM → … → the TM
// that delivers), or whose chain does not match. The operator declares each entity's chain, its
// own TM ID last; the send path refuses an entity without one when the operator requires it,
// carriers carry it (as the IDs, `PE,TM1,…`, or their SHA-256), and SMPP clients that send one are
// checked against it (docs/decisions/0119-dlt-telemarketer-chain.md).
import { createHash } from "node:crypto";
import { BoundedMap } from "../../base/core/bounded-map.js";
import { GatewayError } from "../../base/core/errors.js";
import type { Db, Store } from "../../base/store/store.js";
import { carriedTmChain, DLT_CHANGED, normalizeDltEntityId, splitChain } from "./dlt.js";
import { DltVersionWatch } from "./dlt-version.js";

/** Most telemarketers in one chain (a PE's chain is a handful: aggregators, then the deliverer). */
export const MAX_TM_CHAIN = 10;

/** How a chain travels to a carrier: the IDs `PE,TM1,…,TMn`, or the SHA-256 (hex) of that text. */
export type TmChainFormat = "ids" | "hash";
export const TM_CHAIN_FORMATS: readonly TmChainFormat[] = ["ids", "hash"];

const TM_ID = /^[A-Za-z0-9]{1,30}$/;

export function normalizeTmId(id: string): string {
  const trimmed = id.trim();
  if (!TM_ID.test(trimmed)) {
    throw new GatewayError(
      "invalid_request",
      `"${id}" is not a telemarketer ID: 1 to 30 letters or digits (usually 19 digits).`,
    );
  }
  return trimmed.toUpperCase();
}

/**
 * The chain as stored: each ID checked, no repeats, at most MAX_TM_CHAIN, and the operator's own
 * TM ID (when set) last — appended when the chain given does not end with it.
 */
export function normalizeTmChain(ids: readonly string[], operatorTmId: string | undefined): string[] {
  const chain = ids.flatMap((id) => id.split(",")).map(normalizeTmId);
  const own = operatorTmId === undefined ? undefined : normalizeTmId(operatorTmId);
  if (own !== undefined && chain.at(-1) !== own) chain.push(own);
  if (chain.length === 0) throw new GatewayError("invalid_request", "A telemarketer chain names at least one TM ID.");
  if (chain.length > MAX_TM_CHAIN) {
    throw new GatewayError("invalid_request", `A telemarketer chain has at most ${MAX_TM_CHAIN} TM IDs.`);
  }
  const repeated = chain.find((id, i) => chain.indexOf(id) !== i);
  if (repeated !== undefined) {
    throw new GatewayError(
      "invalid_request",
      repeated === own
        ? `The operator's own TM ID ${own} (DLT_TM_ID) comes last in the chain, once.`
        : `TM ID ${repeated} appears twice in the chain.`,
    );
  }
  return chain;
}

/** The chain as a carrier or a client writes it: `PE,TM1,…,TMn`, or its SHA-256 in lower-case hex. */
export function tmChainValue(entityId: string, chain: readonly string[], format: TmChainFormat): string {
  const ids = [entityId, ...chain].join(",");
  return format === "ids" ? ids : createHash("sha256").update(ids).digest("hex");
}

/**
 * Whether the chain a client sent is the entity's declared one, as carried (`chain`: the
 * operator's TM ID last when DLT_TM_ID is set): as IDs or their hash; spaces and case do not
 * count. Only the operator's own TM ID may be left out at the end (a client upstream of the
 * operator may not know it, decision 0119); without DLT_TM_ID every declared ID is required. An
 * empty chain is never the declared one.
 */
export function tmChainMatches(
  sent: string,
  entityId: string,
  chain: readonly string[],
  operatorTmId: string | undefined,
): boolean {
  const value = sent.replace(/\s+/g, "").toUpperCase();
  if (value === "") return false;
  const own = operatorTmId?.trim().toUpperCase();
  const upstream = own && chain.length > 1 && chain.at(-1) === own ? [chain.slice(0, -1)] : [];
  const forms = [chain, ...upstream].flatMap((ids) =>
    TM_CHAIN_FORMATS.map((format) => tmChainValue(entityId, ids, format).toUpperCase()),
  );
  return forms.includes(value);
}

/** Declares the entity's chain (replacing any); the entity must be one of the account's. */
export async function setTmChain(
  db: Db,
  accountId: number,
  entityId: string,
  ids: readonly string[],
  operatorTmId: string | undefined,
): Promise<{ entity_id: string; tm_chain: string[] }> {
  const entity = normalizeDltEntityId(entityId);
  const chain = normalizeTmChain(ids, operatorTmId);
  const updated = await db
    .updateTable("dlt_entities")
    .set({ tm_chain: chain.join(",") })
    .where("account_id", "=", accountId)
    .where("entity_id", "=", entity)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 0) {
    throw new GatewayError(
      "invalid_request",
      `DLT entity ID ${entity} is not registered for the account; add the entity first.`,
    );
  }
  return { entity_id: entity, tm_chain: chain };
}

/** Clears the entity's chain and answers the chain it had; undefined when it had none (or no such entity). */
export async function clearTmChain(db: Db, accountId: number, entityId: string): Promise<string[] | undefined> {
  const entity = normalizeDltEntityId(entityId);
  const before = await tmChainOf(db, accountId, entity);
  if (before.length === 0) return undefined;
  await db
    .updateTable("dlt_entities")
    .set({ tm_chain: null })
    .where("account_id", "=", accountId)
    .where("entity_id", "=", entity)
    .execute();
  return before;
}

/** The entity's declared chain ([] when none, or no such entity). */
export async function tmChainOf(db: Db, accountId: number, entityId: string): Promise<string[]> {
  const row = await db
    .selectFrom("dlt_entities")
    .select("tm_chain")
    .where("account_id", "=", accountId)
    .where("entity_id", "=", normalizeDltEntityId(entityId))
    .executeTakeFirst();
  return splitChain(row?.tm_chain ?? null);
}

/** Every entity of the account with its chain as carried ([] when none is declared), by entity ID. */
export async function listTmChains(
  db: Db,
  accountId: number,
  operatorTmId: string | undefined,
): Promise<{ entity_id: string; status: string; tm_chain: string[] }[]> {
  const rows = await db
    .selectFrom("dlt_entities")
    .select(["entity_id", "status", "tm_chain"])
    .where("account_id", "=", accountId)
    .orderBy("entity_id")
    .execute();
  return rows.map((row) => ({
    entity_id: row.entity_id,
    status: row.status,
    tm_chain: carriedTmChain(splitChain(row.tm_chain), operatorTmId),
  }));
}

const TTL_MS = 60_000;
const MAX_ACCOUNTS = 10_000;

/**
 * The chains the carriers carry, per account and entity: one select per account, kept 60 s and
 * dropped at once on DLT_CHANGED, or when another process moved the DLT version (SQLite: the
 * CLI). One book per process's carriers; each chain ends with the operator's current TM ID
 * (`operatorTmId`, DLT_TM_ID), whatever was set when it was declared (carriedTmChain).
 */
export class TmChainBook {
  private readonly accounts = new BoundedMap<number, { value: Promise<Map<string, string[]>>; expires: number }>(
    MAX_ACCOUNTS,
  );
  private readonly version: DltVersionWatch;

  constructor(
    private readonly store: Pick<Store, "db" | "signals" | "engine" | "statement">,
    private readonly operatorTmId?: string,
  ) {
    store.signals.listen(DLT_CHANGED, (payload) => this.accounts.delete(Number(payload)));
    this.version = new DltVersionWatch(store, () => this.accounts.clear());
  }

  async chainOf(accountId: number, entityId: string): Promise<string[] | undefined> {
    await this.version.fresh();
    const now = Date.now();
    let hit = this.accounts.get(accountId);
    if (!hit || hit.expires <= now) {
      const value = approvedTmChains(this.store.db, accountId, this.operatorTmId);
      const entry = { value, expires: now + TTL_MS };
      hit = entry;
      this.accounts.set(accountId, entry);
      value.catch(() => {
        if (this.accounts.get(accountId) === entry) this.accounts.delete(accountId);
      });
    }
    return (await hit.value).get(entityId);
  }
}

/** The chains of the account's approved entities, as carried (the operator's TM ID last). */
async function approvedTmChains(
  db: Db,
  accountId: number,
  operatorTmId: string | undefined,
): Promise<Map<string, string[]>> {
  const rows = await db
    .selectFrom("dlt_entities")
    .select(["entity_id", "tm_chain"])
    .where("account_id", "=", accountId)
    .where("status", "=", "approved")
    .where("tm_chain", "is not", null)
    .execute();
  return new Map(rows.map((row) => [row.entity_id, carriedTmChain(splitChain(row.tm_chain), operatorTmId)]));
}
