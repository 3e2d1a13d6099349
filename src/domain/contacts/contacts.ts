// The contacts of a group: listing them a page at a time, reading its numbers for a bulk send, and
// adding them from any source (a JSON list, a streamed CSV) in chunks, with an exact report of what
// was added, repeated or refused.

import { sql } from "kysely";
import { type Clock, isoUtc } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import { normalizeIndianMobile } from "../../base/core/indian-mobile.js";
import type { Engine } from "../../base/store/engine.js";
import { pagedRows } from "../../base/store/paging.js";
import type { Db, Store } from "../../base/store/store.js";
import { groupExists, groupNotFound } from "./groups.js";

/** Contacts written per transaction: amortises a commit without holding the write lock for long. */
export const CONTACT_BATCH = 5_000;
/** Entries listed in each of an upload's `invalid` and `duplicate` lists; the counts cover all. */
export const MAX_REPORTED_ENTRIES = 1_000;
export const MAX_CONTACT_NAME = 100;
/** A longer value is not a phone number: cut it in the report. */
const MAX_REPORTED_VALUE = 64;
const NUL = "\u0000";

/** One contact as a source offers it; `at` is its line (CSV) or index (JSON) for the report. */
export interface ContactEntry {
  at: number;
  value: string;
  name?: string | null | undefined;
}

export type InvalidReason = "invalid_number" | "invalid_name";

export interface ContactImportReport {
  /** Entries read (a CSV's header and blank lines are not entries). */
  received: number;
  added: number;
  /** Numbers already in the group, or repeated in the upload. */
  duplicates: number;
  invalid: number;
  duplicateEntries: { at: number; number: string }[];
  invalidEntries: { at: number; value: string; reason: InvalidReason }[];
}

interface Pending {
  at: number;
  number: string;
  name: string | null;
}

export interface ContactRow {
  id: number;
  number: string;
  name: string | null;
  created_at: number;
}

/** A page of the group's contacts, ordered by number (the order of the unique index). */
export async function listContacts(
  db: Db,
  groupId: number,
  options: { page: number; perPage: number },
): Promise<{ rows: ContactRow[]; total: number }> {
  const query = db.selectFrom("contacts").where("group_id", "=", groupId);
  return pagedRows(query, (q) => q.select(["id", "number", "name", "created_at"]).orderBy("number"), options);
}

export function describeContact(row: ContactRow) {
  return { id: row.id, number: row.number, name: row.name, created_at: isoUtc(new Date(row.created_at)) };
}

/**
 * The numbers of an account's group in number order, at most `limit` (what a bulk send to the
 * group reads); undefined when the group is not the account's.
 */
export async function groupNumbers(
  db: Db,
  accountId: number,
  groupId: number,
  limit: number,
): Promise<string[] | undefined> {
  if (!(await groupExists(db, accountId, groupId))) return undefined;
  // In number order: the (group_id, number) index gives them without a sort.
  const rows = await db
    .selectFrom("contacts")
    .select("number")
    .where("group_id", "=", groupId)
    .orderBy("number")
    .limit(limit)
    .execute();
  return rows.map((row) => row.number);
}

/** Inserts a chunk of distinct numbers, skipping those in the group already; answers the numbers inserted. */
async function insertChunk(trx: Db, engine: Engine, groupId: number, chunk: Pending[], now: number) {
  // One statement with one array parameter per chunk, whatever its size (as the DND import does):
  // SQLite reads a JSON array, PostgreSQL two text arrays.
  const result =
    engine === "sqlite"
      ? await sql<{ number: string }>`insert into contacts (group_id, number, name, created_at)
          select ${groupId}, value ->> 0, value ->> 1, ${now}
          from json_each(${JSON.stringify(chunk.map((entry) => [entry.number, entry.name]))}) where true
          on conflict do nothing returning number`.execute(trx)
      : await sql<{ number: string }>`insert into contacts (group_id, number, name, created_at)
          select ${groupId}::bigint, n, nm, ${now}::bigint
          from unnest(${chunk.map((entry) => entry.number)}::text[], ${chunk.map((entry) => entry.name)}::text[]) as u(n, nm)
          on conflict do nothing returning number`.execute(trx);
  return new Set(result.rows.map((row) => row.number));
}

/** A name as stored: trimmed, blank is none; undefined when it cannot be stored. */
function contactName(raw: string | null | undefined): string | null | undefined {
  const name = raw?.trim() ?? "";
  if (name === "") return null;
  return name.length > MAX_CONTACT_NAME || name.includes(NUL) ? undefined : name;
}

/**
 * Adds the entries to the group, CONTACT_BATCH per transaction, reading them as they come (a
 * CSV stream is never held whole). An existing contact keeps its name. Chunks already written
 * stay when the source fails part-way; the error then says how many were added.
 */
export async function addContacts(
  store: Store,
  clock: Clock,
  accountId: number,
  groupId: number,
  entries: Iterable<ContactEntry> | AsyncIterable<ContactEntry>,
): Promise<ContactImportReport> {
  const report: ContactImportReport = {
    received: 0,
    added: 0,
    duplicates: 0,
    invalid: 0,
    duplicateEntries: [],
    invalidEntries: [],
  };
  let chunk: Pending[] = [];

  const duplicate = (entry: Pending) => {
    report.duplicates += 1;
    if (report.duplicateEntries.length < MAX_REPORTED_ENTRIES) {
      report.duplicateEntries.push({ at: entry.at, number: entry.number });
    }
  };

  const flush = async () => {
    const pending = chunk;
    chunk = [];
    const first = new Map<string, Pending>();
    for (const entry of pending) if (!first.has(entry.number)) first.set(entry.number, entry);
    const now = clock.now().getTime();
    const inserted = await store.transaction(async (trx) => {
      // The group row is touched first: a group deleted meanwhile stops the upload with 404 instead
      // of a foreign-key failure, and on PostgreSQL the row lock holds off a delete until the commit.
      const touched = await trx
        .updateTable("contact_groups")
        .set({ updated_at: now })
        .where("id", "=", groupId)
        .where("account_id", "=", accountId)
        .executeTakeFirst();
      if (Number(touched.numUpdatedRows) === 0) throw groupNotFound(groupId);
      return insertChunk(trx, store.engine, groupId, [...first.values()], now);
    });
    for (const entry of pending) {
      if (first.get(entry.number) === entry && inserted.has(entry.number)) report.added += 1;
      else duplicate(entry);
    }
  };

  try {
    for await (const entry of entries) {
      report.received += 1;
      const number = normalizeIndianMobile(entry.value);
      const name = contactName(entry.name);
      if (!number || name === undefined) {
        report.invalid += 1;
        if (report.invalidEntries.length < MAX_REPORTED_ENTRIES) {
          const reason = number ? "invalid_name" : "invalid_number";
          report.invalidEntries.push({ at: entry.at, value: entry.value.slice(0, MAX_REPORTED_VALUE), reason });
        }
        continue;
      }
      chunk.push({ at: entry.at, number, name });
      if (chunk.length >= CONTACT_BATCH) await flush();
    }
  } catch (error) {
    if (error instanceof GatewayError && error.code === "invalid_request" && report.added > 0) {
      throw new GatewayError(
        error.code,
        `${error.message} ${report.added} contacts were added before the upload stopped; upload the corrected ` +
          "file again (contacts already in the group count as duplicates).",
        { ...error.details, added: report.added },
      );
    }
    throw error;
  }
  if (chunk.length > 0) await flush();
  return report;
}
