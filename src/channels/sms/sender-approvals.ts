// Sender-ID approval lookups on the send path (and for legacy template creation), remembered
// for two seconds: an operator's approval or rejection takes effect within that time, and a
// busy account costs one query per sender every two seconds instead of one per message.
import { BoundedMap } from "../../base/core/bounded-map.js";
import { GatewayError } from "../../base/core/errors.js";
import type { ApprovalStatus } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";
import { askOperatorSentence, registrationFixes, senderIdStatus } from "../../domain/accounts/index.js";
import type { Principal } from "../../domain/auth/index.js";

const TTL_MS = 2_000;
const MAX_ENTRIES = 50_000;

export class SenderApprovals {
  private readonly cache = new BoundedMap<string, { status: ApprovalStatus | undefined; expires: number }>(MAX_ENTRIES);

  constructor(private readonly db: Db) {}

  async status(accountId: number, sender: string): Promise<ApprovalStatus | undefined> {
    const normalized = sender.trim().toUpperCase();
    const key = `${accountId}:${normalized}`;
    const now = Date.now();
    const hit = this.cache.get(key);
    if (hit && hit.expires > now) return hit.status;
    const status = await senderIdStatus(this.db, accountId, normalized);
    this.cache.set(key, { status, expires: now + TTL_MS });
    return status;
  }

  /**
   * The sender in upper case when it is an approved sender ID of the account; otherwise refused:
   * one it does not have as invalid_sender_id (-10), a pending or rejected one as
   * route_not_approved (-19), each saying how to get it approved.
   */
  async requireApproved(principal: Pick<Principal, "accountId" | "username">, sender: string): Promise<string> {
    const approval = await this.status(principal.accountId, sender);
    if (approval === "approved") return sender.trim().toUpperCase();
    const fix = askOperatorSentence(registrationFixes.senderId(principal.username, sender));
    if (approval === undefined) {
      throw new GatewayError(
        "invalid_sender_id",
        `Sender ID "${sender}" is not registered for the account ${principal.username}; request it with POST /api/v2/sender-id-requests. ${fix}`,
      );
    }
    throw new GatewayError("route_not_approved", `Sender ID "${sender}" is ${approval}, not approved. ${fix}`);
  }
}
