// What the operator's page of one message adds to the account's (GET /admin/api/messages/{id},
// `messages show`): the DLT facts it was accepted and sent with, as its row stores them, and what
// every level of a reseller tree was charged for it (the message's own charge, then each
// ancestor's from its upline). An account never reads its parents' charges: they stay here.
import { createHash } from "node:crypto";
import { fromMilli } from "../../base/core/credits.js";
import type { MessageRow } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";
import { headerAtCarrier } from "../../delivery/carriers/promotional-header.js";
import { decodeUpline, getTemplate, usernamesOf } from "../../domain/accounts/index.js";
import type { DltScrub } from "../../domain/messages/index.js";

/**
 * The DLT facts of an SMS (null for the other channels, which DLT does not cover); its header is
 * the one a carrier got: the generic PROMOTIONAL sent to one is PROMOTIONAL_HEADER (`promotionalHeader`).
 */
async function dltFacts(db: Db, row: MessageRow, promotionalHeader: string | undefined) {
  if (row.channel !== "sms") return null;
  const template = row.template_id === null ? undefined : await getTemplate(db, row.account_id, row.template_id);
  const chain = row.dlt_tm_chain;
  return {
    header:
      row.connector && row.connector !== "simulator" ? headerAtCarrier(row.sender, promotionalHeader) : row.sender,
    entity_id: row.dlt_entity_id,
    template_id: row.dlt_template_id,
    matched_template:
      row.template_id === null
        ? null
        : { id: row.template_id, name: template?.name ?? null, dlt_template_id: template?.dlt_template_id ?? null },
    // Kept at acceptance (docs/decisions/0145): null on a row accepted before, not "none".
    tm_chain: chain,
    tm_chain_hash: chain === null ? null : createHash("sha256").update(chain).digest("hex"),
    scrubbing: row.dlt_scrub as DltScrub | null,
  };
}

/** Each level's charge, the message's own account first, then its parent and up the tree. */
async function chargesOf(db: Db, row: MessageRow) {
  const levels = [{ accountId: row.account_id, amount: row.credits }, ...decodeUpline(row.upline)];
  const names = await usernamesOf(
    db,
    levels.map((level) => level.accountId),
  );
  return levels.map((level) => ({ account: names.get(level.accountId) ?? null, credits: fromMilli(level.amount) }));
}

export async function operatorMessageFacts(db: Db, row: MessageRow, promotionalHeader?: string) {
  const [dlt, charges] = await Promise.all([dltFacts(db, row, promotionalHeader), chargesOf(db, row)]);
  return { dlt, charges };
}
