// Credits are stored as integer milli-credits so fractional route prices never round.
// The APIs show credits as numbers (1.5); storage and the ledger only see integers (1500).
import { GatewayError } from "./errors.js";

export const WALLETS = ["sms", "international", "whatsapp", "email", "voice"] as const;
export type Wallet = (typeof WALLETS)[number];

export const MILLI = 1000;

/** The largest amount one operation may move; balances stay far inside exact integer range. */
export const MAX_CREDITS = 1_000_000_000;

/** Converts an amount a person typed into milli-credits; out-of-range input is their mistake (400), not ours. */
export function toMilli(credits: number): number {
  if (!Number.isFinite(credits) || Math.abs(credits) > MAX_CREDITS) {
    throw new GatewayError("invalid_request", `Credit amounts must be at most ${MAX_CREDITS} (got ${credits}).`);
  }
  return Math.round(credits * MILLI);
}

export function fromMilli(milli: number | bigint | string): number {
  return Number(milli) / MILLI;
}

export function isWallet(value: string): value is Wallet {
  return (WALLETS as readonly string[]).includes(value);
}
