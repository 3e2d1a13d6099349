// The contacts of a group: listing them a page at a time, reading its numbers for a bulk send, and
// adding them from any source (a JSON list, a streamed CSV) whole or not at all, with an exact
// report of what was added, repeated or refused.

import { sql } from "kysely";
import { isoUtc } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import { normalizeIndianMobile } from "../../base/core/indian-mobile.js";
import { memoryStaging, type Pending, type Staging } from "../../base/core/staging.js";
import type { Engine } from "../../base/store/engine.js";
import { pagedRows } from "../../base/store/paging.js";
import type { Db, Store } from "../../base/store/store.js";
import { type Audited, recordChange } from "../audit/index.js";
import { groupExists, groupNotFound, groupTarget } from "./groups.js";

/** Contacts written per statement of an upload's one transaction. */
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

/** A refusal of the source (malformed, too large, cut off): nothing was written, and the answer says so. */
function nothingAdded(error: unknown): unknown {
  if (!(error instanceof GatewayError) || error.httpStatus >= 500) return error;
  return new GatewayError(error.code, `${error.message} No contact was added.`, { ...error.details, added: 0 });
}

/**
 * Adds the entries to the group, whole or not at all. The source is read to its end first (a CSV
 * stream into a staging file, never held whole), counting the invalid entries; only then are the
 * valid ones written, in one transaction (CONTACT_BATCH per statement) with the upload's audit
 * entry (`action`: contacts.add for a JSON list, contacts.import for a CSV; none when nothing was
 * added). A source that fails part-way (a malformed line, a body over the limit, a client that
 * stalls or hangs up) writes nothing, and its error says so (`added: 0`). A source without a
 * single entry is refused. An existing contact keeps its name.
 */
export async function addContacts(
  store: Store,
  who: Audited,
  upload: { accountId: number; groupId: number; action: "contacts.add" | "contacts.import" },
  entries: Iterable<ContactEntry> | AsyncIterable<ContactEntry>,
  staging: Staging = memoryStaging(),
): Promise<ContactImportReport> {
  const report: ContactImportReport = {
    received: 0,
    added: 0,
    duplicates: 0,
    invalid: 0,
    duplicateEntries: [],
    invalidEntries: [],
  };
  try {
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
        const staged = staging.add({ at: entry.at, number, name });
        if (staged) await staged;
      }
    } catch (error) {
      throw nothingAdded(error);
    }
    if (report.received === 0) {
      throw new GatewayError(
        "invalid_request",
        "The upload has no contacts: the file is empty, or holds only a header and blank lines.",
      );
    }
    if (report.received > report.invalid) {
      const written = await store.transaction((trx) => importStaged(trx, store.engine, who, upload, report, staging));
      report.added = written.added;
      report.duplicates = written.duplicates;
      report.duplicateEntries = written.duplicateEntries;
    }
    return report;
  } finally {
    await staging.discard();
  }
}

/** The staged contacts written in the transaction `trx`, with the upload's audit entry when it added any. */
async function importStaged(
  trx: Db,
  engine: Engine,
  who: Audited,
  upload: { accountId: number; groupId: number; action: "contacts.add" | "contacts.import" },
  read: { received: number; invalid: number },
  staging: Staging,
) {
  const { accountId, groupId } = upload;
  const now = who.clock.now().getTime();
  // The group row is touched first: a group deleted meanwhile stops the upload with 404 instead of
  // a foreign-key failure, and on PostgreSQL the row lock holds off a delete until the commit.
  const touched = await trx
    .updateTable("contact_groups")
    .set({ updated_at: now })
    .where("id", "=", groupId)
    .where("account_id", "=", accountId)
    .returning("name")
    .executeTakeFirst();
  if (!touched) throw groupNotFound(groupId);
  const written = { added: 0, duplicates: 0, duplicateEntries: [] as { at: number; number: string }[] };
  for await (const pending of staging.chunks(CONTACT_BATCH)) {
    const first = new Map<string, Pending>();
    for (const entry of pending) if (!first.has(entry.number)) first.set(entry.number, entry);
    // Rows this transaction wrote in an earlier chunk count as already there.
    const inserted = await insertChunk(trx, engine, groupId, [...first.values()], now);
    for (const entry of pending) {
      if (first.get(entry.number) === entry && inserted.has(entry.number)) {
        written.added += 1;
        continue;
      }
      written.duplicates += 1;
      if (written.duplicateEntries.length < MAX_REPORTED_ENTRIES) {
        written.duplicateEntries.push({ at: entry.at, number: entry.number });
      }
    }
  }
  if (written.added > 0) {
    await recordChange(trx, who, {
      action: upload.action,
      target: groupTarget(groupId),
      accountId,
      after: {
        group: touched.name,
        received: read.received,
        added: written.added,
        duplicates: written.duplicates,
        invalid: read.invalid,
      },
    });
  }
  return written;
}
