// The Verify API's service: start, check, resend, cancel and expiry of verifications, over the
// rows of rows.ts and the sends of send-code.ts. v2's routes are its only adapter so far.
import { addressLimitKey } from "../../base/core/address-ranges.js";
import { isoUtc } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import { newVerificationId } from "../../base/core/ids.js";
import { normalizeIndianMobile } from "../../base/core/indian-mobile.js";
import type { VerificationStatus } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";
import type { Principal } from "../../domain/auth/index.js";
import { WEBHOOKS_QUEUED, type WebhookOutbox } from "../../domain/webhooks/outbox.js";
import { countryOf } from "./analytics.js";
import { type CodeKeeper, newCode } from "./codes.js";
import { type GuardDeps, guardStart, prefixOf } from "./guards.js";
import { clearEndedPrefixAlerts } from "./prefix-alerts.js";
import {
  approve,
  cancelPending,
  countWrongCode,
  deleteVerification,
  expireDue,
  findVerification,
  insertVerification,
  recordSend,
  replaceCode,
  type VerificationRow,
} from "./rows.js";
import { type CodeSendDeps, isEmailAddress, sendCode, unavailable, usableChannels } from "./send-code.js";
import { type VerifyChannel, verifySettings } from "./settings.js";

export type VerifierDeps = GuardDeps & CodeSendDeps & { webhooks: WebhookOutbox; keeper: CodeKeeper };

export interface StartInput {
  recipient: string;
  channel?: VerifyChannel | undefined;
  codeLength: number;
  expirySeconds: number;
  locale?: string | undefined;
  /** The end user's address, for the per-address limit. */
  clientIp?: string | undefined;
}

export interface CheckAnswer {
  status: Extract<VerificationStatus, "approved" | "pending" | "denied" | "expired">;
  attempts_left: number;
}

export class Verifier {
  constructor(private readonly deps: VerifierDeps) {}

  private get settings() {
    return this.deps.config.verify;
  }

  private now(): number {
    return this.deps.clock.now().getTime();
  }

  async start(principal: Principal, input: StartInput): Promise<VerificationRow> {
    const settings = await verifySettings(this.deps.store.db, principal.accountId);
    const recipient = recipientOf(input.recipient);
    const usable = await usableChannels(this.deps, principal.accountId, settings, recipient);
    // None usable: the first of the order, whose refusal says why.
    const channel = input.channel ?? usable[0] ?? (isEmailAddress(recipient) ? "email" : settings.channels[0]) ?? "sms";
    const now = this.now();
    const country = countryOf(recipient);
    const prefix = prefixOf(recipient);
    const clientIp = clientAddressKey(input.clientIp);
    await guardStart(
      this.deps,
      settings,
      { accountId: principal.accountId, recipient, country, prefix, clientIp },
      now,
    );
    const id = newVerificationId(now);
    const code = newCode(input.codeLength);
    const row = {
      id,
      account_id: principal.accountId,
      recipient,
      channel,
      channels: channel,
      status: "pending" as const,
      code_hash: this.deps.keeper.hash(id, code),
      code_sealed: this.deps.keeper.seal(id, code),
      code_length: input.codeLength,
      locale: input.locale ?? null,
      message_id: null,
      created_at: now,
      expires_at: now + input.expirySeconds * 1000,
      last_sent_at: now,
      done_at: null,
      country,
      prefix,
      client_ip: clientIp,
    };
    // Written first, so the dispatcher finds the sealed code the moment the message is queued.
    await insertVerification(this.deps.store.db, row);
    try {
      const sent = await sendCode(this.deps, principal, settings, {
        verificationId: id,
        recipient,
        code,
        channel,
        locale: input.locale,
      });
      await recordSend(this.deps.store.db, id, { messageId: sent.messageId, channel, channels: channel, at: now });
      return { ...row, attempts: 0, message_id: sent.messageId };
    } catch (error) {
      await deleteVerification(this.deps.store.db, id);
      throw error;
    }
  }

  /** The verification, ended first when it is past its expiry. */
  async get(principal: Principal, id: string): Promise<VerificationRow> {
    const row = await findVerification(this.deps.store.db, principal.accountId, id);
    if (!row) throw new GatewayError("not_found", `No verification with id "${id}" in this account.`);
    if (row.status !== "pending" || row.expires_at > this.now()) return row;
    await this.expire({ accountId: principal.accountId, id });
    return (await findVerification(this.deps.store.db, principal.accountId, id))!;
  }

  async check(principal: Principal, id: string, code: string): Promise<CheckAnswer> {
    const max = this.settings.maxAttempts;
    const row = await this.get(principal, id);
    const answer = this.closedAnswer(row);
    if (answer) return answer;
    const now = this.now();
    if (this.deps.keeper.matches(id, code, row.code_hash)) {
      const approved = await this.withEvent(
        (trx) => approve(trx, id, row.code_hash, now, max),
        (ok) => (ok ? [{ ...row, status: "approved", done_at: now }] : []),
      );
      if (approved) return { status: "approved", attempts_left: max - row.attempts };
    } else {
      const counted = await this.withEvent(
        (trx) => countWrongCode(trx, id, now, max),
        (result) => (result?.status === "denied" ? [{ ...row, status: "denied", attempts: max, done_at: now }] : []),
      );
      if (counted) return { status: counted.status as CheckAnswer["status"], attempts_left: max - counted.attempts };
    }
    // Another check, a resend or the expiry changed it meanwhile: answer what it is now.
    const current = await this.get(principal, id);
    return this.closedAnswer(current) ?? { status: "pending", attempts_left: max - current.attempts };
  }

  /** What a check of a verification that is no longer pending answers (approved and cancelled: 409). */
  private closedAnswer(row: VerificationRow): CheckAnswer | undefined {
    if (row.status === "pending") return undefined;
    if (row.status === "expired" || row.status === "denied") return { status: row.status, attempts_left: 0 };
    throw closed(row);
  }

  async resend(principal: Principal, id: string, named?: VerifyChannel): Promise<VerificationRow> {
    const row = await this.get(principal, id);
    if (row.status !== "pending") throw closed(row);
    const now = this.now();
    const wait = row.last_sent_at + this.settings.resendCooldownSeconds * 1000 - now;
    if (wait > 0) {
      const retryAfter = Math.ceil(wait / 1000);
      throw new GatewayError("verify_resend_too_soon", `The code was sent moments ago; retry in ${retryAfter} s.`, {
        retry_after: retryAfter,
      });
    }
    const settings = await verifySettings(this.deps.store.db, principal.accountId);
    const usable = await usableChannels(this.deps, principal.accountId, settings, row.recipient);
    const channel = named ?? nextChannel(row.channel as VerifyChannel, usable);
    if (!channel) {
      throw unavailable(
        row.channel as VerifyChannel,
        `no channel of the account's verify_channels reaches ${row.recipient}`,
      );
    }
    const fresh = this.settings.resendNewCode ? newCode(row.code_length) : undefined;
    const code = fresh ?? (row.code_sealed ? this.deps.keeper.unseal(id, row.code_sealed) : undefined);
    if (code === undefined || row.code_sealed === null) throw closed(row);
    const db = this.deps.store.db;
    // A new code is in place before its message is queued: the dispatcher may claim the message
    // at once, and must find the new code. A refused send puts the earlier one back.
    const replaced = fresh
      ? { hash: this.deps.keeper.hash(id, fresh), sealed: this.deps.keeper.seal(id, fresh) }
      : undefined;
    if (replaced && !(await replaceCode(db, id, { hash: row.code_hash, sealed: row.code_sealed }, replaced))) {
      throw closed(await this.get(principal, id));
    }
    let sent: { messageId: string };
    try {
      sent = await sendCode(this.deps, principal, settings, {
        verificationId: id,
        recipient: row.recipient,
        code,
        channel,
        locale: row.locale,
      });
    } catch (error) {
      if (replaced) await replaceCode(db, id, replaced, { hash: row.code_hash, sealed: row.code_sealed });
      throw error;
    }
    const channels = `${row.channels},${channel}`;
    await recordSend(db, id, { messageId: sent.messageId, channel, channels, at: now });
    return { ...row, channel, channels, message_id: sent.messageId, last_sent_at: now };
  }

  async cancel(principal: Principal, id: string): Promise<VerificationRow> {
    const row = await this.get(principal, id);
    if (row.status !== "pending" || !(await cancelPending(this.deps.store.db, principal.accountId, id, this.now()))) {
      throw closed(await this.get(principal, id));
    }
    return { ...row, status: "cancelled", done_at: this.now() };
  }

  /** Ends what is past its expiry (one verification, or every one: housekeeping), each with its event. */
  async expire(only?: { accountId: number; id?: string }): Promise<number> {
    const now = this.now();
    let ended = 0;
    await this.withEvent(
      async (trx) => {
        const rows = await expireDue(trx, now, only);
        ended = rows.length;
        return rows;
      },
      (rows) => rows,
    );
    return ended;
  }

  /** Clears the pumping guard's alerts whose block is over (ended, or the prefix allowed): the worker's pass. */
  clearEndedAlerts(): Promise<number> {
    return clearEndedPrefixAlerts(this.deps, this.now());
  }

  /** Runs `change` in a transaction with the webhook events of the rows it ended; wakes the sender after. */
  private async withEvent<T>(change: (trx: Db) => Promise<T>, ended: (result: T) => VerificationRow[]): Promise<T> {
    let events = 0;
    const result = await this.deps.store.transaction(async (trx) => {
      const value = await change(trx);
      for (const row of ended(value)) {
        const event = `verification_${row.status}` as const;
        if (event !== "verification_approved" && event !== "verification_denied" && event !== "verification_expired")
          continue;
        events += await this.deps.webhooks.enqueue(trx, row.account_id, event, row.id, row.done_at ?? this.now(), {
          event,
          verification_id: row.id,
          recipient: row.recipient,
          channel: row.channel,
          status: row.status,
          at: isoUtc(new Date(row.done_at ?? this.now())),
        });
      }
      return value;
    });
    if (events > 0) await this.deps.store.signals.notify(WEBHOOKS_QUEUED).catch(() => undefined);
    return result;
  }
}

/** An email address in lower case, an Indian mobile as its 10 digits, anything else as given. */
function recipientOf(raw: string): string {
  const trimmed = raw.trim();
  if (isEmailAddress(trimmed)) return trimmed.toLowerCase();
  return normalizeIndianMobile(trimmed) ?? trimmed;
}

/** The start's `client_ip` as the per-address limit counts it (addressLimitKey); refused when it is no IP address. */
function clientAddressKey(raw: string | undefined): string | null {
  if (raw === undefined || raw.trim() === "") return null;
  const key = addressLimitKey(raw);
  if (key === undefined) {
    throw new GatewayError("invalid_request", `client_ip "${raw.slice(0, 45)}" is not an IP address.`, {
      field: "client_ip",
    });
  }
  return key;
}

/** The channel after `current` in the escalation order; the last one again at its end. */
export function nextChannel(current: VerifyChannel, usable: readonly VerifyChannel[]): VerifyChannel | undefined {
  if (usable.length === 0) return undefined;
  const at = usable.indexOf(current);
  return usable[Math.min(at + 1, usable.length - 1)];
}

function closed(row: VerificationRow): GatewayError {
  return new GatewayError("verification_closed", `The verification ${row.id} is ${row.status}; start a new one.`, {
    verification_status: row.status,
  });
}
