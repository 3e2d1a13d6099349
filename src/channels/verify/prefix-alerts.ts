// The pumping guard's operator alert (`alert: verify_prefix_blocked`, the signed webhook to the
// alert URL): raised with the block, in its transaction, and cleared when the block's hour ends or
// the operator allows the prefix. Its state is `verify_prefixes.alert_raised_at`: the block sets
// it, and the one conditional UPDATE that empties it clears the alert, so however many processes
// look (the worker's pass, a start to the prefix, the operator's allow) it is cleared once.
// docs/decisions/0130.
import { isoUtc } from "../../base/core/clock.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { Db } from "../../base/store/store.js";
import { readAlertSettings } from "../../delivery/alerts/index.js";
import { queueOperatorAlert } from "../../domain/webhooks/alert-queries.js";
import { WEBHOOKS_QUEUED } from "../../domain/webhooks/outbox.js";

export type PrefixAlertDeps = Pick<Runtime, "store" | "logger">;
type AlertSettings = Awaited<ReturnType<typeof readAlertSettings>>;

const PAGE = 500;

interface PrefixAlert {
  accountId: number;
  prefix: string;
  state: "raised" | "cleared";
  /** The conversion that blocked it. */
  value: number | null;
  detail: string;
  /** When the block began. */
  since: number;
}

/** Queues the alert's webhook in `trx` when the operator set an alert URL; answers whether it did. */
export async function queuePrefixAlert(
  deps: PrefixAlertDeps,
  trx: Db,
  { settings, operatorAccountId }: AlertSettings,
  alert: PrefixAlert,
  now: number,
): Promise<boolean> {
  if (!settings.url || operatorAccountId === null) return false;
  await queueOperatorAlert(deps.store, trx, {
    operatorAccountId,
    url: settings.url,
    // One order key for its raise and its clear: a receiver gets them in that order.
    orderKey: `alert:verify_prefix_blocked:${alert.accountId}:${alert.prefix}`,
    now,
    payload: {
      event: "alert",
      alert: "verify_prefix_blocked",
      subject: `account:${alert.accountId} ${alert.prefix}`,
      state: alert.state,
      value: alert.value,
      detail: alert.detail,
      since: isoUtc(new Date(alert.since)),
      at: isoUtc(new Date(now)),
    },
  });
  return true;
}

/**
 * Clears the prefix's alert if it is raised and its block is over (ended, or the operator allowed
 * the prefix); answers whether this call cleared it.
 */
export async function clearPrefixAlert(
  deps: PrefixAlertDeps,
  accountId: number,
  prefix: string,
  now: number,
): Promise<boolean> {
  const { store } = deps;
  const alertSettings = await readAlertSettings(store.db);
  let queued = false;
  const cleared = await store.transaction(async (trx) => {
    const row = await trx
      .updateTable("verify_prefixes")
      .set({ alert_raised_at: null })
      .where("account_id", "=", accountId)
      .where("prefix", "=", prefix)
      .where("alert_raised_at", "is not", null)
      .where((eb) =>
        eb.or([eb("allowed_at", "is not", null), eb("blocked_until", "is", null), eb("blocked_until", "<=", now)]),
      )
      .returning(["blocked_at", "conversion", "allowed_at"])
      .executeTakeFirst();
    if (!row) return false;
    const why = row.allowed_at !== null ? "the operator allowed the prefix" : "its hour of block ended";
    const detail = `account ${accountId}'s verifications to ${prefix} are accepted again: ${why}`;
    deps.logger.info({ account: accountId, prefix }, `verify prefix alert cleared: ${why}`);
    queued = await queuePrefixAlert(
      deps,
      trx,
      alertSettings,
      {
        accountId,
        prefix,
        state: "cleared",
        value: row.conversion === null ? null : Number(row.conversion),
        detail,
        since: Number(row.blocked_at ?? now),
      },
      now,
    );
    return true;
  });
  if (queued) await store.signals.notify(WEBHOOKS_QUEUED).catch(() => undefined);
  return cleared;
}

/** The worker's pass: every raised alert whose block is over is cleared. Answers how many it cleared. */
export async function clearEndedPrefixAlerts(deps: PrefixAlertDeps, now: number): Promise<number> {
  const rows = await deps.store.db
    .selectFrom("verify_prefixes")
    .select(["account_id", "prefix"])
    .where("alert_raised_at", "is not", null)
    .where((eb) =>
      eb.or([eb("allowed_at", "is not", null), eb("blocked_until", "is", null), eb("blocked_until", "<=", now)]),
    )
    .limit(PAGE)
    .execute();
  let cleared = 0;
  for (const row of rows) {
    if (await clearPrefixAlert(deps, Number(row.account_id), row.prefix, now)) cleared++;
  }
  return cleared;
}
