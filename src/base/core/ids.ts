// Identifiers: queue ids are `q` + a monotonic ULID (time-sortable, unique across processes);
// broadcast ids are `<account_id>_<yyyymmdd>_<sequence>`.
import { getRandomValues } from "node:crypto";
import { monotonicFactory } from "ulid";

// ulid draws its randomness a byte at a time, one call into the CSPRNG per character; the same
// bytes, drawn 4 KB at a time.
const pool = new Uint8Array(4096);
let used = pool.length;
function randomFraction(): number {
  if (used === pool.length) {
    getRandomValues(pool);
    used = 0;
  }
  return pool[used++]! / 256;
}

const ulid = monotonicFactory(randomFraction);

export function newQueueId(now: number = Date.now()): string {
  return `q${ulid(now)}`;
}

/** A verification's id: `v` + ULID. */
export function newVerificationId(now: number = Date.now()): string {
  return `v${ulid(now)}`;
}

export function isVerificationId(id: string): boolean {
  return /^v[0-9A-HJKMNP-TV-Z]{26}$/i.test(id);
}

/** A fallback chain's id (POST /api/v2/send): `c` + ULID. */
export function newChainId(now: number = Date.now()): string {
  return `c${ulid(now)}`;
}

export function isChainId(id: string): boolean {
  return /^c[0-9A-HJKMNP-TV-Z]{26}$/i.test(id);
}

export function isQueueId(id: string): boolean {
  return /^q[0-9A-HJKMNP-TV-Z]{26}$/i.test(id);
}

/**
 * A queue id as it is stored (`q` + its ULID upper-case), read in either case: a ULID is Crockford
 * base 32, and clients, relays and spreadsheets lower-case it. Undefined when `id` is no queue id.
 */
export function storedQueueId(id: string): string | undefined {
  return isQueueId(id) ? `q${id.slice(1).toUpperCase()}` : undefined;
}

export const BROADCAST_ID = /^(\d+)_(\d{8})_(\d+)$/;

/** `day` is the account-local date as yyyymmdd. */
export function formatBroadcastId(accountId: number, day: string, sequence: number): string {
  return `${accountId}_${day}_${String(sequence).padStart(6, "0")}`;
}
