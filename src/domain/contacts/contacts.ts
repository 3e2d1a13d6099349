// The contacts of a group: listing them a page at a time, reading its numbers for a bulk send, and
// adding them from any source (a JSON list, a streamed CSV) in chunks, with an exact report of what
// was added, repeated or refused.

import { sql } from "kysely";
import { isoUtc } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import { normalizeIndianMobile } from "../../base/core/indian-mobile.js";
import type { Engine } from "../../base/store/engine.js";
import { pagedRows } from "../../base/store/paging.js";
import type { Db, Store } from "../../base/store/store.js";
import { type Audited, recordChange } from "../audit/index.js";
import { groupExists, groupNotFound, groupTarget } from "./groups.js";

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
 * stay when the source fails part-way; the error then says how many were added. One audit entry
 * per call (`action`: contacts.add for a JSON list, contacts.import for a CSV) with the counts,
 * none when nothing was added: written in the transaction of the last chunk, or, when the upload
 * stops part-way after adding some, with `stopped: true` once the chunks written are known.
 */
export async function addContacts(
  store: Store,
  who: Audited,
  upload: { accountId: number; groupId: number; action: "contacts.add" | "contacts.import" },
  entries: Iterable<ContactEntry> | AsyncIterable<ContactEntry>,
): Promise<ContactImportReport> {
  const { accountId, groupId } = upload;
  const report: ContactImportReport = {
    received: 0,
    added: 0,
    duplicates: 0,
    invalid: 0,
    duplicateEntries: [],
    invalidEntries: [],
  };
  let chunk: Pending[] = [];
  let groupName = "";

  const duplicate = (entry: Pending) => {
    report.duplicates += 1;
    if (report.duplicateEntries.length < MAX_REPORTED_ENTRIES) {
      report.duplicateEntries.push({ at: entry.at, number: entry.number });
    }
  };

  const recordUpload = (trx: Db, totals: { added: number; duplicates: number }, stopped: boolean) =>
    recordChange(trx, who, {
      action: upload.action,
      target: groupTarget(groupId),
      accountId,
      after: {
        group: groupName,
        received: report.received,
        added: totals.added,
        duplicates: totals.duplicates,
        invalid: report.invalid,
        ...(stopped ? { stopped: true } : {}),
      },
    });

  const flush = async (pending: Pending[], last: boolean) => {
    const first = new Map<string, Pending>();
    for (const entry of pending) if (!first.has(entry.number)) first.set(entry.number, entry);
    const now = who.clock.now().getTime();
    // The entries this chunk added: each number's first entry, when its row was new.
    const fresh = await store.transaction(async (trx) => {
      // The group row is touched first: a group deleted meanwhile stops the upload with 404 instead
      // of a foreign-key failure, and on PostgreSQL the row lock holds off a delete until the commit.
      const touched = await trx
        .updateTable("contact_groups")
        .set({ updated_at: now })
        .where("id", "=", groupId)
        .where("account_id", "=", accountId)
        .returning("name")
        .executeTakeFirst();
      if (!touched) throw groupNotFound(groupId);
      groupName = touched.name;
      const inserted = await insertChunk(trx, store.engine, groupId, [...first.values()], now);
      const added = new Set(pending.filter((entry) => first.get(entry.number) === entry && inserted.has(entry.number)));
      const totals = { added: report.added + added.size, duplicates: report.duplicates + pending.length - added.size };
      if (last && totals.added > 0) await recordUpload(trx, totals, false);
      return added;
    });
    for (const entry of pending) {
      if (fresh.has(entry)) report.added += 1;
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
      // A full chunk waits for the next contact: the last chunk carries the audit entry.
      if (chunk.length > CONTACT_BATCH) {
        const full = chunk.slice(0, CONTACT_BATCH);
        chunk = chunk.slice(CONTACT_BATCH);
        await flush(full, false);
      }
    }
  } catch (error) {
    await recordStop();
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
  try {
    if (chunk.length > 0) await flush(chunk, true);
  } catch (error) {
    await recordStop();
    throw error;
  }
  return report;

  /** An upload that stopped part-way: the chunks already written are recorded (the stop's own error is the one thrown). */
  async function recordStop() {
    if (report.added === 0) return;
    const totals = { added: report.added, duplicates: report.duplicates };
    await store.transaction((trx) => recordUpload(trx, totals, true)).catch(() => undefined);
  }
}
