// What every operator command of the CLI shares: option parsers, a store opened on the
// configured database for the length of one command, and printing as text or JSON.
import { InvalidArgumentError } from "commander";
import { openStore, type Store } from "../store/store.js";
import { loadConfig } from "./config.js";

export function onOff(value: string): boolean {
  if (/^(on|true|yes|1)$/i.test(value)) return true;
  if (/^(off|false|no|0)$/i.test(value)) return false;
  throw new InvalidArgumentError("use on or off");
}

export function wholeNumber(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError("use a whole number");
  return Number(value);
}

export function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError("use a positive number");
  return n;
}

export async function withStore<T>(fn: (store: Store) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const store = await openStore(config.database, { sqliteSynchronous: config.sqliteSynchronous });
  try {
    await store.migrate();
    return await fn(store);
  } finally {
    await store.close();
  }
}

export function print(value: unknown, json: boolean | undefined, human: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human()}\n`);
}

/** Every row of a paginated list, read `perPage` at a time (a CLI listing prints them all). */
export async function allPages<T>(
  read: (page: number, perPage: number) => Promise<{ rows: T[]; meta: { last_page: number } }>,
  perPage = 1000,
): Promise<T[]> {
  const all: T[] = [];
  for (let page = 1; ; page++) {
    const { rows, meta } = await read(page, perPage);
    all.push(...rows);
    if (page >= meta.last_page) return all;
  }
}
