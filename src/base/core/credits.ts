// Credits are stored as integer milli-credits so fractional route prices never round.
// The APIs show credits as numbers (1.5); storage and the ledger only see integers (1500).
import { GatewayError } from "./errors.js";
import { WALLETS, type Wallet } from "./wallets.js";

export { WALLETS, type Wallet };

export const MILLI = 1000;

/** The largest amount one operation may move; balances stay far inside exact integer range. */
export const MAX_CREDITS = 1_000_000_000;

/** Decimals the ledger keeps: milli-credits. */
export const CREDIT_DECIMALS = 3;

/**
 * Converts an amount a person typed into milli-credits; out-of-range input is their mistake (400),
 * not ours, and so is a finer amount than the ledger keeps (0.0015 is refused, never rounded).
 */
export function toMilli(credits: number, field?: string): number {
  const details = field === undefined ? undefined : { field };
  if (!Number.isFinite(credits) || Math.abs(credits) > MAX_CREDITS) {
    throw new GatewayError(
      "invalid_request",
      `Credit amounts must be at most ${MAX_CREDITS} (got ${credits}).`,
      details,
    );
  }
  if (decimalsOf(credits) > CREDIT_DECIMALS) {
    throw new GatewayError(
      "invalid_request",
      `Credit amounts have at most ${CREDIT_DECIMALS} decimals (0.001 credits is the smallest step the ledger keeps); got ${credits}.`,
      details,
    );
  }
  return Math.round(credits * MILLI);
}

/** Decimals of a number as written in its shortest form (1.005 → 3, 1.5e-7 → 8). */
function decimalsOf(value: number): number {
  const [mantissa = "", exponent = "0"] = String(Math.abs(value)).split("e");
  const fraction = mantissa.split(".")[1]?.length ?? 0;
  return Math.max(0, fraction - Number(exponent));
}

export function fromMilli(milli: number | bigint | string): number {
  return Number(milli) / MILLI;
}

export function isWallet(value: string): value is Wallet {
  return (WALLETS as readonly string[]).includes(value);
}
