// A large DND import on SQLite, written beside the registry and swapped in (decision 0185's
// addendum). SQLite has one writer: written in the one transaction PostgreSQL uses, a registry of
// millions of numbers held every other write of the gateway (sends included) about 2.4 s a
// million. Here the numbers go into a side table in transactions of DND_BATCH, each as short as
// an operator's add, and one last transaction drops the registry and renames the side table in
// its place, with the audit entry: whole or not at all still, as an import that fails part-way
// drops its side table and changes nothing. A merge import first copies the registry into the
// side table (in transactions of COPY_BATCH); triggers on the registry mirror into it every add
// and remove made meanwhile (the API, the CLI, another process), so none is lost by the swap.
import { sql } from "kysely";
import { GatewayError } from "../../base/core/errors.js";
import { ownerStopped, PROCESS_INSTANCE } from "../../base/store/processes.js";
import type { Db, Store } from "../../base/store/store.js";

/** Staged numbers from which a SQLite import is swapped in rather than written in one transaction. */
export const DND_SWAP_FROM = 200_000;
/** Registry rows copied into the side table per transaction. */
const COPY_BATCH = 50_000;
const SIDE_PREFIX = "dnd_import_";
/** A side table's name: the pid of the process writing it and this process's load (a pid reused after a crash differs in it). */
const SIDE_NAME = /^dnd_import_(\d+)_([0-9a-f]{12})$/;
/** Side tables this process is writing now. */
const writing = new Set<string>();

export interface Registry {
  count: number;
  numbers: string[];
}

/** Drops a side table and its triggers (none is left when the registry it watched was dropped). */
async function dropSide(trx: Db, side: string): Promise<void> {
  await sql.raw(`drop trigger if exists "${side}_added"`).execute(trx);
  await sql.raw(`drop trigger if exists "${side}_removed"`).execute(trx);
  await sql.raw(`drop table if exists "${side}"`).execute(trx);
}

/** Whether a side table is being written now, by this process or a live other one. */
function beingWritten(side: string): boolean {
  const parsed = SIDE_NAME.exec(side);
  if (!parsed) return false;
  const pid = Number(parsed[1]);
  if (ownerStopped(pid, parsed[2] ?? "")) return false;
  return pid !== process.pid || writing.has(side);
}

/** The side tables in the database now, each with whether it is being written. */
async function sideTables(trx: Db): Promise<{ name: string; live: boolean }[]> {
  const tables = await sql<{
    name: string;
  }>`select name from sqlite_master where type = 'table' and substr(name, 1, ${SIDE_PREFIX.length}) = ${SIDE_PREFIX}`.execute(
    trx,
  );
  return tables.rows.map(({ name }) => ({ name, live: beingWritten(name) }));
}

/** Drops what imports a stopped process was writing (SQLite; at a start); answers how many. */
export async function dropStoppedImports(store: Store): Promise<number> {
  if (store.engine !== "sqlite") return 0;
  return store.transaction(async (trx) => {
    const stopped = (await sideTables(trx)).filter((side) => !side.live);
    for (const side of stopped) await dropSide(trx, side.name);
    return stopped.length;
  });
}

/**
 * Makes this import's side table and the triggers that mirror the registry's changes into it;
 * drops what a stopped import left (kill -9, a crash); refuses while another import is written.
 */
async function claimSide(store: Store): Promise<string> {
  const side = `${SIDE_PREFIX}${process.pid}_${PROCESS_INSTANCE}`;
  await store.transaction(async (trx) => {
    for (const other of await sideTables(trx)) {
      if (other.live) {
        throw new GatewayError(
          "conflict",
          "Another DND import is being written to the registry; import this file when it has ended. No number was added.",
          { added: 0 },
        );
      }
      await dropSide(trx, other.name);
    }
    await sql.raw(`create table "${side}" ("number" integer primary key)`).execute(trx);
    await sql
      .raw(
        `create trigger "${side}_added" after insert on dnd_numbers begin insert or ignore into "${side}" ("number") values (new."number"); end`,
      )
      .execute(trx);
    await sql
      .raw(
        `create trigger "${side}_removed" after delete on dnd_numbers begin delete from "${side}" where "number" = old."number"; end`,
      )
      .execute(trx);
  });
  writing.add(side);
  return side;
}

/** Copies the registry into the side table, COPY_BATCH numbers a transaction, in key order. */
async function copyRegistry(store: Store, side: string): Promise<void> {
  let after = -1;
  for (;;) {
    const last = await store.transaction(async (trx) => {
      const copied = await sql<{
        last: number | null;
      }>`select max("number") as last from (select "number" from dnd_numbers where "number" > ${after} order by "number" limit ${COPY_BATCH})`.execute(
        trx,
      );
      const upTo = copied.rows[0]?.last ?? null;
      if (upTo === null) return null;
      await sql`insert or ignore into ${sql.table(side)} ("number") select "number" from dnd_numbers where "number" > ${after} and "number" <= ${upTo}`.execute(
        trx,
      );
      return upTo;
    });
    if (last === null) return;
    after = last;
  }
}

export interface SwapWriter {
  /** The side table the numbers go into (insertKeys' `table`). */
  table: string;
  /** Runs `write` in a transaction of its own, for one batch of numbers. */
  batch<T>(write: (trx: Db) => Promise<T>): Promise<T>;
}

/**
 * Writes an import beside the registry (`write` adds its numbers through the writer, a batch a
 * transaction), then swaps it in with `finish` (the audit entry) in one transaction, given what
 * the registry held when a `replace` emptied it. On any failure the side table is dropped and
 * the registry is as it was.
 */
export async function swapInImport<T>(
  store: Store,
  options: { replace: boolean /** Numbers of the emptied registry the audit entry names. */; named: number },
  write: (writer: SwapWriter) => Promise<T>,
  finish: (trx: Db, written: T, replaced: Registry | undefined) => Promise<void>,
): Promise<T> {
  const side = await claimSide(store);
  try {
    if (!options.replace) await copyRegistry(store, side);
    const written = await write({ table: side, batch: (fn) => store.transaction(fn) });
    await store.transaction(async (trx) => {
      const replaced = options.replace ? await registryOf(trx, options.named) : undefined;
      await sql.raw(`drop table dnd_numbers`).execute(trx);
      await sql.raw(`alter table "${side}" rename to dnd_numbers`).execute(trx);
      await finish(trx, written, replaced);
    });
    return written;
  } catch (error) {
    await store.transaction((trx) => dropSide(trx, side)).catch(() => undefined);
    throw error;
  } finally {
    writing.delete(side);
  }
}

/** How many numbers the registry holds and the first `named` of them. */
export async function registryOf(trx: Db, named: number): Promise<Registry> {
  const count = await trx
    .selectFrom("dnd_numbers")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .executeTakeFirstOrThrow();
  const first = await trx.selectFrom("dnd_numbers").select("number").orderBy("number").limit(named).execute();
  return { count: Number(count.count), numbers: first.map((row) => String(row.number)) };
}
