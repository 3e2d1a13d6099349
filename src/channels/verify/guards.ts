// The pumping and abuse guards a start passes before anything is sent, so a refused start costs
// nothing and leaves no row: starts per recipient and per end-user address in the last hour, the
// account's countries, and the destination prefix whose conversion fell low (blocked for an
// hour, the operator alerted; the operator can allow a prefix). docs/decisions/0117.
import { isoUtc } from "../../base/core/clock.js";
import { type ErrorCode, GatewayError } from "../../base/core/errors.js";
import { internationalDigits } from "../../base/core/indian-mobile.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { readAlertSettings } from "../../delivery/alerts/index.js";
import { type Audited, recordChange } from "../../domain/audit/index.js";
import { WEBHOOKS_QUEUED } from "../../domain/webhooks/outbox.js";
import { clearPrefixAlert, queuePrefixAlert } from "./prefix-alerts.js";
import { startsSince } from "./rows.js";
import type { VerifySettings } from "./settings.js";

export type GuardDeps = Pick<Runtime, "store" | "clock" | "config" | "metrics" | "logger">;

const HOUR_MS = 3_600_000;
/** The digits of a prefix: the country code and the first digits of the number (91 + 4 for India). */
export const PREFIX_DIGITS = 6;

/** The destination prefix the pumping guard counts; null for an email address. */
export function prefixOf(recipient: string): string | null {
  if (recipient.includes("@")) return null;
  return internationalDigits(recipient, "transactional").slice(0, PREFIX_DIGITS);
}

export interface GuardedStart {
  accountId: number;
  recipient: string;
  country: string | null;
  prefix: string | null;
  clientIp: string | null;
}

function refuse(deps: GuardDeps, code: ErrorCode, message: string, details: Record<string, unknown>): never {
  deps.metrics.verifyRefusals.inc({ code });
  throw new GatewayError(code, message, details);
}

async function checkHourly(
  deps: GuardDeps,
  start: GuardedStart,
  now: number,
  limit: { column: "recipient" | "client_ip"; value: string | null; max: number; code: ErrorCode; what: string },
): Promise<void> {
  if (limit.max === 0 || limit.value === null) return;
  const { count, oldest } = await startsSince(deps.store.db, start.accountId, limit.column, limit.value, now - HOUR_MS);
  if (count < limit.max) return;
  const retryAfter = Math.max(1, Math.ceil(((oldest ?? now) + HOUR_MS - now) / 1000));
  refuse(
    deps,
    limit.code,
    `${limit.max} verifications were started ${limit.what} ${limit.value} in the last hour; retry in ${retryAfter} s.`,
    { retry_after: retryAfter },
  );
}

/** Passes, or throws the guard's refusal (counted in switchboard_verify_refusals_total). */
export async function guardStart(
  deps: GuardDeps,
  settings: VerifySettings,
  start: GuardedStart,
  now: number,
): Promise<void> {
  const config = deps.config.verify;
  await checkHourly(deps, start, now, {
    column: "recipient",
    value: start.recipient,
    max: config.startsPerRecipientPerHour,
    code: "verify_recipient_limited",
    what: "to",
  });
  // A number of no country known is no number: the channel's rules refuse it (invalid_recipient).
  if (start.country !== null && !settings.countries.includes(start.country)) {
    refuse(
      deps,
      "verify_country_not_allowed",
      `The account may verify numbers of ${settings.countries.join(", ")}; ${start.recipient} is of ${start.country}. Ask the operator to add it to verify_countries.`,
      { country: start.country },
    );
  }
  await checkHourly(deps, start, now, {
    column: "client_ip",
    value: start.clientIp,
    max: config.startsPerAddressPerHour,
    code: "verify_address_limited",
    what: "for the address",
  });
  if (start.prefix !== null && config.pumpingMinConversion > 0) await checkPrefix(deps, start, start.prefix, now);
}

async function checkPrefix(deps: GuardDeps, start: GuardedStart, prefix: string, now: number): Promise<void> {
  const { store, config } = deps;
  const row = await store.db
    .selectFrom("verify_prefixes")
    .selectAll()
    .where("account_id", "=", start.accountId)
    .where("prefix", "=", prefix)
    .executeTakeFirst();
  if (row?.allowed_at != null) return;
  if (row?.blocked_until != null && Number(row.blocked_until) > now)
    throw blocked(deps, prefix, Number(row.blocked_until), now);
  // The block's hour ended before the worker's pass cleared its alert: cleared here, before a new block.
  if (row?.alert_raised_at != null) await clearPrefixAlert(deps, start.accountId, prefix, now);
  const stats = await store.db
    .selectFrom("verifications")
    .select((eb) => [
      eb.fn.countAll<number>().as("started"),
      eb.fn.sum<number>(eb.case().when("status", "=", "approved").then(1).else(0).end()).as("approved"),
    ])
    .where("account_id", "=", start.accountId)
    .where("prefix", "=", prefix)
    .where("created_at", ">", now - HOUR_MS)
    .executeTakeFirstOrThrow();
  const started = Number(stats.started);
  if (started < config.verify.pumpingMinSamples) return;
  const conversion = Number(stats.approved ?? 0) / started;
  if (conversion >= config.verify.pumpingMinConversion) return;
  await block(deps, start.accountId, prefix, { started, conversion }, now);
  throw blocked(deps, prefix, now + HOUR_MS, now);
}

function blocked(deps: GuardDeps, prefix: string, until: number, now: number): GatewayError {
  const retryAfter = Math.max(1, Math.ceil((until - now) / 1000));
  deps.metrics.verifyRefusals.inc({ code: "verify_prefix_blocked" });
  return new GatewayError(
    "verify_prefix_blocked",
    `Verifications to numbers starting ${prefix} are refused until ${isoUtc(new Date(until))}: too few of the last hour's were approved (SMS pumping). The operator can allow the prefix.`,
    { prefix, retry_after: retryAfter },
  );
}

/** Blocks the prefix for an hour and raises the operator's alert, once however many starts race here. */
async function block(
  deps: GuardDeps,
  accountId: number,
  prefix: string,
  stats: { started: number; conversion: number },
  now: number,
): Promise<void> {
  const { store } = deps;
  const conversion = Math.round(stats.conversion * 10_000) / 10_000;
  const values = {
    blocked_at: now,
    blocked_until: now + HOUR_MS,
    samples: stats.started,
    conversion,
    alert_raised_at: now,
  };
  const alertSettings = await readAlertSettings(store.db);
  const alerted = await store.transaction(async (trx) => {
    const changed = await trx
      .insertInto("verify_prefixes")
      .values({ account_id: accountId, prefix, allowed_at: null, ...values })
      .onConflict((oc) =>
        oc
          .columns(["account_id", "prefix"])
          .doUpdateSet(values)
          .where((eb) =>
            eb.and([
              eb("verify_prefixes.allowed_at", "is", null),
              eb.or([eb("verify_prefixes.blocked_until", "is", null), eb("verify_prefixes.blocked_until", "<=", now)]),
            ]),
          ),
      )
      .returning("prefix")
      .executeTakeFirst();
    if (!changed) return false;
    const detail = `account ${accountId}'s verifications to ${prefix}: ${stats.started} in the last hour, ${conversion * 100} % approved; new ones refused for an hour`;
    deps.logger.warn({ account: accountId, prefix, started: stats.started, conversion }, "verify prefix blocked");
    deps.metrics.verifyPrefixesBlocked.inc();
    const alert = { accountId, prefix, state: "raised" as const, value: conversion, detail, since: now };
    return queuePrefixAlert(deps, trx, alertSettings, alert, now);
  });
  if (alerted) await store.signals.notify(WEBHOOKS_QUEUED).catch(() => undefined);
}

/** A prefix's state as the operator API shows it: allowed by the operator, blocked now, or neither. */
function prefixState(row: { allowed_at: number | null; blocked_until: number | null } | undefined, now: number) {
  if (row?.allowed_at != null) return "allowed" as const;
  return row?.blocked_until != null && Number(row.blocked_until) > now ? ("blocked" as const) : ("unblocked" as const);
}

/** The account's blocked and allowed prefixes, as the operator API shows them. */
export async function verifyPrefixes(db: GuardDeps["store"]["db"], accountId: number, now: number) {
  const rows = await db
    .selectFrom("verify_prefixes")
    .selectAll()
    .where("account_id", "=", accountId)
    .orderBy("prefix")
    .execute();
  const time = (at: number | null) => (at === null ? null : isoUtc(new Date(Number(at))));
  return rows.map((row) => ({
    prefix: row.prefix,
    state: prefixState(row, now),
    blocked_at: time(row.blocked_at),
    blocked_until: time(row.blocked_until),
    samples: row.samples === null ? null : Number(row.samples),
    conversion: row.conversion === null ? null : Number(row.conversion),
    allowed_at: time(row.allowed_at),
  }));
}

/**
 * The operator allows a prefix (the guard never blocks it; a block ends and its alert is cleared)
 * or guards it again, audited in the same transaction as `verify_prefix.allow` or
 * `verify_prefix.guard` with its state before and after. A prefix already so changes nothing
 * and writes nothing (an allowed prefix keeps its first `allowed_at`).
 */
export async function allowVerifyPrefix(
  deps: Pick<GuardDeps, "store" | "logger">,
  who: Audited,
  account: { id: number; username: string },
  prefix: string,
  allowed: boolean,
): Promise<void> {
  const now = who.clock.now().getTime();
  const values = allowed ? { allowed_at: now, blocked_until: null } : { allowed_at: null };
  const changed = await deps.store.transaction(async (trx) => {
    const row = await trx
      .selectFrom("verify_prefixes")
      .select(["allowed_at", "blocked_until"])
      .where("account_id", "=", account.id)
      .where("prefix", "=", prefix)
      .executeTakeFirst();
    if ((row?.allowed_at != null) === allowed) return false;
    const blockedUntil = row?.blocked_until == null ? null : isoUtc(new Date(Number(row.blocked_until)));
    await trx
      .insertInto("verify_prefixes")
      .values({
        account_id: account.id,
        prefix,
        blocked_at: null,
        blocked_until: null,
        samples: null,
        conversion: null,
        alert_raised_at: null,
        ...values,
      })
      .onConflict((oc) => oc.columns(["account_id", "prefix"]).doUpdateSet(values))
      .execute();
    await recordChange(trx, who, {
      action: allowed ? "verify_prefix.allow" : "verify_prefix.guard",
      target: `verify prefix ${prefix} of ${account.username}`,
      accountId: account.id,
      before: { state: prefixState(row, now), blocked_until: blockedUntil },
      after: { state: allowed ? "allowed" : "unblocked" },
    });
    return true;
  });
  if (changed && allowed) await clearPrefixAlert(deps, account.id, prefix, now);
}
