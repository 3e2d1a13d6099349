// Checks an operator's JSON Lines export of the audit log without the database (decision 0162):
// each line carries `hashed`, the entry's canonical JSON as its hash covers it (prev_hash among its
// fields). A line passes when the SHA-256 of `hashed` is its `hash` and every field it shows says
// what `hashed` says; two lines whose numbers follow each other pass when the second names the
// first's hash. Numbers missing between lines (a filtered export, or lines taken out) are listed.
import { createHash } from "node:crypto";
import { isoUtc } from "../../base/core/clock.js";
import { AUDIT_GENESIS, canonicalJson } from "../../base/store/audit-chain.js";
import type { ChainBreak } from "./verify.js";

export interface ExportReport {
  /** Lines checked. */
  entries: number;
  /** The last line's number and hash: compare with the live log's `audit verify`. */
  last: { seq: number; hash: string } | null;
  /** Runs of numbers between two lines that the file does not hold, first to last. */
  gaps: Array<{ from: number; to: number }>;
  broken?: ChainBreak;
}

type Line = Record<string, unknown>;

/** The fields a line shows, each as `hashed` has it. */
const SHOWN = ["actor", "actor_user", "channel", "credential", "address", "action", "target"] as const;

/** Why `line` does not say what its `hashed` says, or null. */
function mismatch(line: Line, hashed: Line): string | null {
  if (hashed.seq !== line.seq) return "its seq is not the one it hashed";
  if (typeof hashed.at !== "number" || isoUtc(new Date(hashed.at)) !== line.at)
    return "its time is not the one it hashed";
  for (const field of SHOWN) {
    if ((hashed[field] ?? null) !== (line[field] ?? null)) return `its ${field} is not the one it hashed`;
  }
  for (const field of ["before", "after"] as const) {
    const stored = hashed[field] === null ? null : JSON.parse(String(hashed[field]));
    if (canonicalJson(stored) !== canonicalJson(line[field] ?? null)) return `its ${field} is not the one it hashed`;
  }
  return null;
}

/** Checks the lines of an export, oldest first; stops at the first that fails. */
export function checkAuditExport(lines: Iterable<string>): ExportReport {
  const report: ExportReport = { entries: 0, last: null, gaps: [] };
  let previous: { seq: number; hash: string } | null = null;
  let number = 0;
  for (const text of lines) {
    number++;
    if (text.trim() === "") continue;
    const fail = (seq: number, reason: string) => {
      report.broken = { seq, reason };
      return report;
    };
    let line: Line;
    let hashed: Line;
    try {
      line = JSON.parse(text) as Line;
      hashed = JSON.parse(String(line.hashed)) as Line;
    } catch {
      return fail(
        previous ? previous.seq + 1 : 1,
        `line ${number} is not an entry of an operator's JSON Lines export (with hashed)`,
      );
    }
    const seq = Number(line.seq);
    if (!Number.isSafeInteger(seq) || seq < 1 || (previous && seq <= previous.seq)) {
      return fail(seq, `line ${number}: entry numbers must rise from line to line`);
    }
    if (createHash("sha256").update(String(line.hashed)).digest("hex") !== line.hash) {
      return fail(seq, "edited: what it hashed does not match its hash");
    }
    const wrong = mismatch(line, hashed);
    if (wrong) return fail(seq, `edited: ${wrong}`);
    const expectedPrev = seq === 1 ? AUDIT_GENESIS : previous?.seq === seq - 1 ? previous.hash : null;
    if (expectedPrev !== null && hashed.prev_hash !== expectedPrev) {
      return fail(seq, `does not follow entry ${seq - 1} (its prev_hash is not that entry's hash)`);
    }
    const from = previous ? previous.seq + 1 : 1;
    if (seq > from) report.gaps.push({ from, to: seq - 1 });
    previous = { seq, hash: String(line.hash) };
    report.entries++;
  }
  report.last = previous;
  return report;
}
