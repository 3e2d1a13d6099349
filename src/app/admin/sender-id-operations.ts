// Operator actions on an account's sender IDs, shared by the operator API and the CLI: add one
// (pending, or approved at once), list them, approve or reject one by its id. Every path that
// leaves a sender ID approved white-lists it as the account's DLT header in the same
// transaction, unless told not to (decision 0151): senderIdWithHeader.

import { GatewayError } from "../../base/core/errors.js";
import type { ApprovalStatus, SenderIdRow } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";
import {
  addSenderId,
  approvalBefore,
  DLT_CHANGED,
  type DltHeaderRow,
  describeDltHeader,
  describeSenderId,
  dltChanged,
  getSenderId,
  listSenderIds,
  rejectionReason,
  requireAccount,
  setSenderIdStatus,
  usernamesOf,
  whitelistSenderAsHeader,
} from "../../domain/accounts/index.js";
import { recordChange } from "../../domain/audit/index.js";
import { type ChangeDeps, type OperatorDeps, recordDecision } from "./operations.js";

/**
 * Adds a sender ID to an account, pending unless `approve`. Approved at once, it is white-listed
 * as the account's DLT header as an approval does (decision 0151, senderIdWithHeader) unless
 * `dltHeader` is false; `dltHeader` goes with `approve` only (a pending sender ID white-lists
 * nothing). The answer's `dlt_header` is that header, null when none was white-listed.
 */
export async function addSenderIdFor(
  deps: ChangeDeps,
  input: { username: string; sender: string; approve?: boolean; dltHeader?: boolean },
) {
  const approve = input.approve ?? false;
  if (input.dltHeader !== undefined && !approve) {
    throw new GatewayError(
      "invalid_request",
      "dlt_header goes with approve: true; a sender ID left pending white-lists no DLT header.",
      { field: "dlt_header" },
    );
  }
  const account = await requireAccount(deps.store.db, input.username);
  const { row, header } = await senderIdWithHeader(deps, approve && input.dltHeader !== false, async (trx) => {
    const row = await addSenderId(trx, deps.clock, account.id, input.sender, { approve });
    const after = describeSenderId(row);
    await recordChange(trx, deps, {
      action: "sender_id.add",
      target: `sender ID ${row.id}`,
      accountId: account.id,
      after,
    });
    return row;
  });
  return {
    id: row.id,
    account: account.username,
    sender_id: row.sender,
    status: row.status,
    dlt_header: header ? describeDltHeader(header) : null,
  };
}

export async function senderIdsOf(deps: OperatorDeps, username: string, status?: ApprovalStatus) {
  const account = await requireAccount(deps.store.db, username);
  return (await listSenderIds(deps.store.db, account.id, status)).map(describeSenderId);
}

/**
 * Sets a sender ID's status by its id. An id alone picks whichever account owns it: given
 * `username`, one of another account is refused as unknown. The answer names the account.
 * An approval white-lists the sender ID as the account's DLT header in the same transaction
 * (audited as `dlt_header.add`) unless `dltHeader` is false (decision 0151); the answer's
 * `dlt_header` is that header, null when none was white-listed.
 */
export async function setSenderIdStatusFor(
  deps: ChangeDeps,
  id: number,
  status: ApprovalStatus,
  username?: string,
  /** A rejection's reason, shown to the account (rejectionReason). */
  reason: string | null = null,
  dltHeader = true,
) {
  const db = deps.store.db;
  if (username !== undefined) {
    const account = await requireAccount(db, username);
    if (!(await getSenderId(db, account.id, id))) {
      throw new GatewayError("not_found", `No sender ID with id ${id} in account ${account.username}.`);
    }
  }
  const { row, header } = await senderIdWithHeader(deps, status === "approved" && dltHeader, async (trx) => {
    const before = await approvalBefore(trx, "sender_ids", id);
    const row = await setSenderIdStatus(trx, deps.clock, id, status, rejectionReason(reason));
    if (!row || !before) throw new GatewayError("not_found", `No sender ID with id ${id}.`);
    await recordDecision(trx, deps, "sender_id", `sender ID ${id}`, before, describeSenderId(row));
    return row;
  });
  return {
    ...describeSenderId(row),
    account: (await usernamesOf(db, [row.account_id])).get(row.account_id),
    dlt_header: header ? describeDltHeader(header) : null,
  };
}

/**
 * Every operator path that leaves a sender ID approved (its approval, an add with `approve`)
 * runs its change through this (decision 0151): `change` writes the sender ID in a transaction,
 * and when `whitelist` is true the same transaction white-lists it as the account's DLT header
 * (whitelistSenderAsHeader: a pending or rejected header approved, its reason cleared), audited as
 * `dlt_header.add` beside the sender ID's own entry, none when the header was white-listed
 * already. Once committed, the caches of the account's DLT registrations are told. `header` is
 * the header white-listed or found so; undefined when `whitelist` is false or the sender ID cannot
 * be a header (a long number).
 */
async function senderIdWithHeader(
  deps: ChangeDeps,
  whitelist: boolean,
  change: (trx: Db) => Promise<SenderIdRow>,
): Promise<{ row: SenderIdRow; header: DltHeaderRow | undefined }> {
  const { row, header, added } = await deps.store.transaction(async (trx) => {
    const row = await change(trx);
    const header = whitelist ? await whitelistSenderAsHeader(trx, deps.clock, row.account_id, row.sender) : undefined;
    const added = header !== undefined && header.before !== "approved";
    if (header && added) {
      const after = { ...describeDltHeader(header.row), with: `sender ID ${row.id}` };
      const entry = { target: `DLT header ${header.row.id}`, accountId: row.account_id, after };
      await recordChange(trx, deps, { action: "dlt_header.add", ...entry, before: { status: header.before } });
    }
    return { row, header: header?.row, added };
  });
  if (added) await dltChanged(deps.store, DLT_CHANGED, row.account_id);
  return { row, header };
}
