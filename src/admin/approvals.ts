// The operator's one approval queue: everything accounts asked for and nobody decided yet
// (sender IDs, templates, keywords, DLT entity IDs and headers, email domains, voice caller
// numbers), across accounts, oldest first. Each kind is decided through its own operator call.
import { type RawBuilder, sql } from "kysely";
import type { Db } from "../store/store.js";

export const APPROVAL_KINDS = [
  "sender_id",
  "template",
  "keyword",
  "dlt_entity",
  "dlt_header",
  "email_domain",
  "voice_caller_id",
] as const;
export type ApprovalKind = (typeof APPROVAL_KINDS)[number];

/** Per kind: what it is called (`value`) and what else the operator reads before deciding (`detail`). */
const PENDING: Record<ApprovalKind, RawBuilder<unknown>> = {
  sender_id: sql`select 'sender_id' as kind, id, account_id, sender as value, note as detail, created_at
                   from sender_ids where status = 'pending'`,
  template: sql`select 'template' as kind, id, account_id, name as value, content as detail, created_at
                  from templates where status = 'pending'`,
  keyword: sql`select 'keyword' as kind, id, account_id, ${sql.ref("key")} as value, static_message as detail, created_at
                 from keywords where status = 'pending'`,
  dlt_entity: sql`select 'dlt_entity' as kind, id, account_id, entity_id as value, cast(null as text) as detail, created_at
                    from dlt_entities where status = 'pending'`,
  dlt_header: sql`select 'dlt_header' as kind, id, account_id, header as value, cast(null as text) as detail, created_at
                    from dlt_headers where status = 'pending'`,
  email_domain: sql`select 'email_domain' as kind, id, account_id, domain as value, cast(null as text) as detail, created_at
                      from email_domains where status = 'pending'`,
  voice_caller_id: sql`select 'voice_caller_id' as kind, id, account_id, number as value, cast(null as text) as detail, created_at
                         from voice_caller_ids where status = 'pending'`,
};

interface PendingRow {
  kind: ApprovalKind;
  id: number;
  account: string;
  value: string;
  detail: string | null;
  created_at: number;
}

function union(kinds: readonly ApprovalKind[]): RawBuilder<unknown> {
  return sql.join(
    kinds.map((kind) => PENDING[kind]),
    sql` union all `,
  );
}

/** One page of the queue (of one kind, or of all) and how many of each kind wait. */
export async function pendingApprovals(
  db: Db,
  options: { kind?: ApprovalKind | undefined; page: number; perPage: number },
) {
  const kinds: readonly ApprovalKind[] = options.kind ? [options.kind] : APPROVAL_KINDS;
  const [rows, counts] = await Promise.all([
    sql<PendingRow>`
      select q.kind, q.id, a.username as account, q.value, q.detail, q.created_at
        from (${union(kinds)}) q join accounts a on a.id = q.account_id
       order by q.created_at, q.kind, q.id
       limit ${options.perPage} offset ${(options.page - 1) * options.perPage}`.execute(db),
    sql<{ kind: ApprovalKind; n: number }>`
      select kind, count(*) as n from (${union(APPROVAL_KINDS)}) q group by kind`.execute(db),
  ]);
  const waiting = Object.fromEntries(APPROVAL_KINDS.map((kind) => [kind, 0])) as Record<ApprovalKind, number>;
  for (const row of counts.rows) waiting[row.kind] = Number(row.n);
  const total = kinds.reduce((sum, kind) => sum + waiting[kind], 0);
  return {
    items: rows.rows.map((row) => ({
      kind: row.kind,
      id: Number(row.id),
      account: row.account,
      value: row.value,
      detail: row.detail,
      created_at: new Date(Number(row.created_at)).toISOString(),
    })),
    waiting,
    total,
  };
}
