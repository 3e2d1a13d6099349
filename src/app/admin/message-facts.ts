// What the operator's page of one message adds to the account's (GET /admin/api/messages/{id},
// `messages show`): the DLT facts it was accepted and sent with, as its row stores them, and what
// every level of a reseller tree was charged for it (the message's own charge, then each
// ancestor's from its upline). An account never reads its parents' charges: they stay here.
import { createHash } from "node:crypto";
import { fromMilli } from "../../base/core/credits.js";
import type { MessageRow } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";
import { GENERIC_PROMOTIONAL_SENDER } from "../../delivery/carriers/promotional-header.js";
import { decodeUpline, getTemplate, usernamesOf } from "../../domain/accounts/index.js";
import type { DltScrub } from "../../domain/messages/index.js";

/**
 * The source address (DLT header) a carrier got for `row`, as recorded at its submit (decision
 * 0187), never what today's PROMOTIONAL_HEADER would make of it: the one kept when it was not its
 * sender (the generic PROMOTIONAL sent as the operator's header), else its sender, which no
 * connector changes. Null when not known: PROMOTIONAL handed to a real carrier with nothing
 * recorded (sent before migration 0075, or refused before any carrier got it).
 */
export function headerSent(row: Pick<MessageRow, "sender" | "connector" | "carrier_source">): string | null {
  if (row.carrier_source !== null) return row.carrier_source;
  // Not handed to a connector yet, or to the simulator, which takes the sender as it is.
  if (row.sender !== GENERIC_PROMOTIONAL_SENDER || !row.connector || row.connector === "simulator") return row.sender;
  return null;
}

/** The DLT facts of an SMS (null for the other channels, which DLT does not cover). */
async function dltFacts(db: Db, row: MessageRow) {
  if (row.channel !== "sms") return null;
  const template = row.template_id === null ? undefined : await getTemplate(db, row.account_id, row.template_id);
  const chain = row.dlt_tm_chain;
  return {
    header: headerSent(row),
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

export async function operatorMessageFacts(db: Db, row: MessageRow) {
  const [dlt, charges] = await Promise.all([dltFacts(db, row), chargesOf(db, row)]);
  return { dlt, charges };
}
