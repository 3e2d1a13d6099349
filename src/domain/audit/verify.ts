// Walks the audit log from its first entry and checks the chain: the numbers follow without a
// gap, each entry names the previous entry's hash, each hash matches its entry, and the head
// matches the last one. The first entry that fails is named: a deleted, edited or re-ordered
// entry cannot pass unnoticed, short of re-hashing every entry after it and the head.
import { AUDIT_GENESIS, auditHash } from "../../base/store/audit-chain.js";
import type { Db } from "../../base/store/store.js";

/** Entries read at a time. */
const PAGE = 1000;

export interface ChainBreak {
  /** The first entry that fails its check (for entries deleted from the end, the first missing one). */
  seq: number;
  reason: string;
}

export interface ChainReport {
  /** Entries checked. */
  entries: number;
  /** The head's number and hash: what an auditor notes to compare with a later check. */
  head: { seq: number; hash: string };
  broken?: ChainBreak;
}

export async function verifyAuditChain(db: Db): Promise<ChainReport> {
  const headRow = await db.selectFrom("audit_head").select(["seq", "hash"]).where("id", "=", 1).executeTakeFirst();
  const head = { seq: Number(headRow?.seq ?? 0), hash: headRow?.hash ?? AUDIT_GENESIS };
  let expected = 1;
  let prev = AUDIT_GENESIS;
  for (;;) {
    const rows = await db
      .selectFrom("audit_log")
      .selectAll()
      .where("seq", ">=", expected)
      .orderBy("seq")
      .limit(PAGE)
      .execute();
    for (const row of rows) {
      const seq = Number(row.seq);
      const broken = checkEntry(row, seq, expected, prev);
      if (broken) return { entries: expected - 1, head, broken };
      prev = row.hash;
      expected++;
    }
    if (rows.length < PAGE) break;
  }
  const last = expected - 1;
  if (head.seq > last) {
    const reason = `entries ${expected} to ${head.seq} are missing: the head counts ${head.seq} entries, the log ends at ${last} (deleted from the end)`;
    return { entries: last, head, broken: { seq: expected, reason } };
  }
  if (head.seq < last || head.hash !== prev) {
    const reason = `the head (entry ${head.seq}, hash ${head.hash.slice(0, 12)}…) does not match the last entry: the head was changed, or entries were added after it`;
    return { entries: last, head, broken: { seq: Math.min(head.seq + 1, last), reason } };
  }
  return { entries: last, head };
}

function checkEntry(
  row: Parameters<typeof auditHash>[0] & { hash: string },
  seq: number,
  expected: number,
  prev: string,
): ChainBreak | undefined {
  if (seq !== expected) {
    const missing = seq - 1 === expected ? `entry ${expected} is` : `entries ${expected} to ${seq - 1} are`;
    return { seq: expected, reason: `${missing} missing (deleted)` };
  }
  if (row.prev_hash !== prev) {
    const before = expected === 1 ? "the start of the log" : `entry ${expected - 1}`;
    return {
      seq,
      reason: `does not follow ${before} (its prev_hash is not that entry's hash): entries were re-ordered, inserted or deleted, or ${before} was changed and re-hashed`,
    };
  }
  if (auditHash(row) !== row.hash) return { seq, reason: "edited: its content does not match its hash" };
  return undefined;
}
