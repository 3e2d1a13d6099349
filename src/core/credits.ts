// Credits are stored as integer milli-credits so fractional route prices never round.
// The APIs show credits as numbers (1.5); storage and the ledger only see integers (1500).

export const WALLETS = ["sms", "international", "whatsapp", "email", "voice"] as const;
export type Wallet = (typeof WALLETS)[number];

export const MILLI = 1000;

export function toMilli(credits: number): number {
  const milli = Math.round(credits * MILLI);
  if (!Number.isSafeInteger(milli)) throw new RangeError(`credit amount out of range: ${credits}`);
  return milli;
}

export function fromMilli(milli: number | bigint | string): number {
  return Number(milli) / MILLI;
}

export function isWallet(value: string): value is Wallet {
  return (WALLETS as readonly string[]).includes(value);
}
