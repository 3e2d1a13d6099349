// The operator's one approval queue: everything accounts asked for and nobody decided yet
// (sender IDs, templates, keywords, DLT entity IDs, headers, links and callback numbers, email domains, voice caller
// numbers), across accounts, oldest first. Each kind is decided through its own operator call.
// The folder that owns a kind's table gives its pending rows (accounts/pending-requests.ts);
// this file unions them into one statement for the page and one for the counts.

import type { Db } from "../../base/store/store.js";
import { type DomainHolder, holderList, pendingEmailDomains, sharedWith } from "../../channels/email/index.js";
import { pendingKeywords } from "../../channels/inbound/index.js";
import { pendingCallerIds } from "../../channels/voice/index.js";
import {
  type PendingRequests,
  pendingDltEntities,
  pendingDltHeaders,
  pendingDltLinks,
  pendingSenderIds,
  pendingTemplates,
  requesterName,
} from "../../domain/accounts/index.js";
import { APPROVAL_KINDS, type ApprovalKind } from "./approval-kinds.js";

/** Per kind, its owner's select of the pending rows. */
const PENDING: Record<ApprovalKind, (db: Db) => PendingRequests> = {
  sender_id: pendingSenderIds,
  template: pendingTemplates,
  keyword: pendingKeywords,
  dlt_entity: pendingDltEntities,
  dlt_header: pendingDltHeaders,
  dlt_url: pendingDltLinks("url"),
  dlt_callback: pendingDltLinks("callback"),
  email_domain: pendingEmailDomains,
  voice_caller_id: pendingCallerIds,
};

/** The pending rows of these kinds, as one `union all`. */
function union(db: Db, kinds: readonly ApprovalKind[]): PendingRequests {
  const [first, ...rest] = kinds.map((kind) => PENDING[kind](db));
  if (!first) throw new Error("The approval queue needs at least one kind.");
  return rest.length === 0 ? first : first.unionAll(rest);
}

/** One page of the queue (of one kind, or of all) and how many of each kind wait. */
export async function pendingApprovals(
  db: Db,
  options: { kind?: ApprovalKind | undefined; page: number; perPage: number },
) {
  const kinds: readonly ApprovalKind[] = options.kind ? [options.kind] : APPROVAL_KINDS;
  const [rows, counts] = await Promise.all([
    db
      .selectFrom(union(db, kinds).as("q"))
      .select((eb) => [
        "q.kind",
        "q.id",
        "q.account_id",
        requesterName(eb.ref("q.account_id")),
        "q.value",
        "q.detail",
        "q.created_at",
      ])
      .orderBy("q.created_at")
      .orderBy("q.kind")
      .orderBy("q.id")
      .limit(options.perPage)
      .offset((options.page - 1) * options.perPage)
      .execute(),
    db
      .selectFrom(union(db, APPROVAL_KINDS).as("q"))
      .select((eb) => ["q.kind", eb.fn.countAll().as("n")])
      .groupBy("q.kind")
      .execute(),
  ]);
  const waiting = Object.fromEntries(APPROVAL_KINDS.map((kind) => [kind, 0])) as Record<ApprovalKind, number>;
  for (const row of counts) waiting[row.kind as ApprovalKind] = Number(row.n);
  const total = kinds.reduce((sum, kind) => sum + waiting[kind], 0);
  // A sending domain another account holds (decision 0179): the operator reads which, here, and
  // the console asks for the confirmation its approval needs.
  const shares = new Map<number, DomainHolder[]>();
  for (const row of rows) {
    if (row.kind === "email_domain")
      shares.set(Number(row.id), await sharedWith(db, row.value, Number(row.account_id)));
  }
  const claim = (holders: DomainHolder[] | undefined) =>
    holders?.length ? `Also held by ${holderList(holders)}: approving needs "confirm_shared": true.` : undefined;
  return {
    items: rows.map((row) => ({
      kind: row.kind as ApprovalKind,
      id: Number(row.id),
      account: row.account,
      value: row.value,
      detail: claim(shares.get(Number(row.id))) ?? row.detail,
      created_at: new Date(Number(row.created_at)).toISOString(),
      ...(row.kind === "email_domain" ? { shared_with: shares.get(Number(row.id)) ?? [] } : {}),
    })),
    waiting,
    total,
  };
}
