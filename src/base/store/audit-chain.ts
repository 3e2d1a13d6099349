// The hash of an audit_log row (decision 0120): SHA-256 of the row's canonical JSON (its fields
// but `hash`, keys sorted, no spaces), `prev_hash` among them, so each entry covers the one
// before it. Written once here for domain/audit, which appends and verifies, and the migration
// that moved the account views into the log.
import { createHash } from "node:crypto";
import type { AuditLogTable } from "./schema-audit.js";

/** The previous hash of the first entry. */
export const AUDIT_GENESIS = "0".repeat(64);

export type AuditContent = Omit<AuditLogTable, "hash">;

/** The fields of a row as hashed: numbers as numbers whichever engine read them (bigint as text on PostgreSQL). */
export function auditContent(row: AuditContent): AuditContent {
  const id = (value: number | string | null) => (value === null ? null : Number(value));
  return {
    seq: Number(row.seq),
    at: Number(row.at),
    actor_account_id: id(row.actor_account_id),
    actor: row.actor,
    actor_user: row.actor_user,
    channel: row.channel,
    credential: row.credential,
    address: row.address,
    account_id: id(row.account_id),
    action: row.action,
    target: row.target,
    before: row.before,
    after: row.after,
    prev_hash: row.prev_hash,
  };
}

/** JSON with every object's keys in sorted order and no white space: one text for one value. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const fields = Object.entries(value as Record<string, unknown>)
    .filter(([, field]) => field !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${fields.map(([key, field]) => `${JSON.stringify(key)}:${canonicalJson(field)}`).join(",")}}`;
}

export function auditHash(row: AuditContent): string {
  return createHash("sha256")
    .update(canonicalJson(auditContent(row)))
    .digest("hex");
}
