// Sending domains: an account asks for a domain, gets the DKIM record to publish, and an
// operator approves it; `from` must be an address on one of the account's approved domains,
// and mail from it is DKIM-signed with the domain's key.
import { sql } from "kysely";
import type { Clock } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import type { ApprovalStatus, EmailDomainsTable } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";
import { NO_DETAIL, type PendingRequests, usernamesOf } from "../../domain/accounts/index.js";
import { type DkimKeyPair, generateDkimKey } from "./content.js";

export type EmailDomainRow = Omit<EmailDomainsTable, "id" | "rejection_reason"> & {
  id: number;
  rejection_reason: string | null;
};

const DOMAIN = /^(?=.{3,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/;
/** Selector of the DKIM keys this gateway makes: the record goes at `<selector>._domainkey.<domain>`. */
export const DKIM_SELECTOR = "switchboard";

export function normalizeDomain(raw: string): string {
  const domain = raw.trim().toLowerCase().replace(/\.$/, "");
  if (!DOMAIN.test(domain) || /^\d+(\.\d+)*$/.test(domain)) {
    throw new GatewayError("invalid_request", `"${raw.slice(0, 80)}" is not a domain name such as mail.example.com.`, {
      field: "domain",
    });
  }
  return domain;
}

/**
 * Adds a domain to the account (pending, with a fresh DKIM key); 409 when it has it already. A
 * route passes the key it made before its transaction (`newDkimKey`); without one it is made here.
 */
export async function addEmailDomain(
  db: Db,
  clock: Clock,
  accountId: number,
  raw: string,
  options: { approve?: boolean; key?: DkimKeyPair } = {},
): Promise<EmailDomainRow> {
  const domain = normalizeDomain(raw);
  const existing = await findDomain(db, accountId, domain);
  if (existing) throw new GatewayError("conflict", `The account already has the domain ${domain}.`);
  const key = options.key ?? generateDkimKey();
  const now = clock.now().getTime();
  return db
    .insertInto("email_domains")
    .values({
      account_id: accountId,
      domain,
      status: options.approve ? "approved" : "pending",
      dkim_selector: DKIM_SELECTOR,
      dkim_private_key: key.privateKey,
      dkim_public_key: key.publicKey,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findDomain(db: Db, accountId: number, domain: string): Promise<EmailDomainRow | undefined> {
  return db
    .selectFrom("email_domains")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("domain", "=", domain)
    .executeTakeFirst();
}

export async function listEmailDomains(db: Db, accountId: number): Promise<EmailDomainRow[]> {
  return db.selectFrom("email_domains").selectAll().where("account_id", "=", accountId).orderBy("domain").execute();
}

/** The sending domains waiting for the operator, as part of the approval queue (admin/approvals.ts). */
export function pendingEmailDomains(db: Db): PendingRequests {
  return db
    .selectFrom("email_domains")
    .select([
      sql.lit("email_domain").as("kind"),
      "id",
      "account_id",
      "domain as value",
      NO_DETAIL.as("detail"),
      "created_at",
    ])
    .where("status", "=", "pending");
}

/** Another account holding a domain, by its username (decision 0179). */
export type DomainHolder = { account: string; status: "approved" | "pending" };

/**
 * The other accounts that hold the domain approved or pending (decision 0179): a second account's
 * request is shown to the operator with them, and is approved only when the operator confirms.
 */
export async function domainHolders(
  db: Db,
  domain: string,
  exceptAccountId: number,
): Promise<Array<{ account_id: number; status: DomainHolder["status"] }>> {
  const holders = await db
    .selectFrom("email_domains")
    .select(["account_id", "status"])
    .where("domain", "=", domain)
    .where("account_id", "!=", exceptAccountId)
    .where("status", "in", ["approved", "pending"])
    .orderBy("account_id")
    .execute();
  return holders.map((holder) => ({ account_id: holder.account_id, status: holder.status as DomainHolder["status"] }));
}

/** The other accounts holding the domain approved or pending, by username: the approval queue's `shared_with`. */
export async function sharedWith(db: Db, domain: string, exceptAccountId: number): Promise<DomainHolder[]> {
  const holders = await domainHolders(db, domain, exceptAccountId);
  if (holders.length === 0) return [];
  const names = await usernamesOf(
    db,
    holders.map((holder) => holder.account_id),
  );
  return holders.map((holder) => ({
    account: names.get(holder.account_id) ?? String(holder.account_id),
    status: holder.status,
  }));
}

/** The holders as a sentence names them: `bob (approved), carol (pending)`. */
export const holderList = (holders: readonly DomainHolder[]) =>
  holders.map((holder) => `${holder.account} (${holder.status})`).join(", ");

/**
 * The one check of every approval of a sending domain (decision 0179): refused (409 conflict,
 * field confirm_shared) while another account holds the domain approved or pending, unless the
 * operator confirmed the share ("confirm_shared": true). DKIM-signed mail of one account's domain
 * sent by another is otherwise what the approval lets through; the gateway checks no DNS.
 */
export async function refuseUnconfirmedShare(
  db: Db,
  accountId: number,
  domain: string,
  confirmed: boolean,
): Promise<void> {
  if (confirmed) return;
  const holders = await sharedWith(db, domain, accountId);
  if (holders.length === 0) return;
  throw new GatewayError(
    "conflict",
    `${domain} is held by another account too: ${holderList(holders)}. Approve it only if both send for it, with "confirm_shared": true.`,
    { field: "confirm_shared" },
  );
}

export async function setEmailDomainStatus(
  db: Db,
  clock: Clock,
  accountId: number,
  raw: string,
  status: ApprovalStatus,
  /** A rejection's reason, shown to the account; kept only when rejected. */
  reason: string | null = null,
): Promise<EmailDomainRow> {
  const domain = normalizeDomain(raw);
  const row = await db
    .updateTable("email_domains")
    .set({ status, rejection_reason: status === "rejected" ? reason : null, updated_at: clock.now().getTime() })
    .where("account_id", "=", accountId)
    .where("domain", "=", domain)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new GatewayError("not_found", `The account has no domain ${domain}.`);
  return row;
}

/** Removes a domain of the account; answers the row removed. */
export async function removeEmailDomain(db: Db, accountId: number, raw: string): Promise<EmailDomainRow> {
  const domain = normalizeDomain(raw);
  const row = await db
    .deleteFrom("email_domains")
    .where("account_id", "=", accountId)
    .where("domain", "=", domain)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new GatewayError("not_found", `The account has no domain ${domain}.`);
  return row;
}

/** Whether the account may send from this address's domain. */
export async function isApprovedSender(db: Db, accountId: number, address: string): Promise<boolean> {
  const domain = address.slice(address.lastIndexOf("@") + 1).toLowerCase();
  const row = await findDomain(db, accountId, domain);
  return row?.status === "approved";
}

/** The domain as the APIs show it, with the DNS record to publish for DKIM. */
export function describeEmailDomain(row: EmailDomainRow, iso: (ms: number) => string) {
  const body = row.dkim_public_key.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, "").replace(/\s+/g, "");
  return {
    domain: row.domain,
    status: row.status,
    rejection_reason: row.rejection_reason,
    dkim: {
      selector: row.dkim_selector,
      record_name: `${row.dkim_selector}._domainkey.${row.domain}`,
      record_type: "TXT",
      record_value: `v=DKIM1; k=rsa; p=${body}`,
    },
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
