// Sender-ID approval lookups on the send path, remembered for two seconds: an operator's
// approval or rejection takes effect within that time, and a busy account costs one query
// per sender every two seconds instead of one per message.
import { BoundedMap } from "../../base/core/bounded-map.js";
import type { ApprovalStatus } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";
import { senderIdStatus } from "../../domain/accounts/index.js";

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
}
