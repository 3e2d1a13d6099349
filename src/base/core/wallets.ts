// The wallets an account's credits are kept in, one per use. A list with no imports: the console
// imports it as it is (its wallet columns and forms).
export const WALLETS = ["sms", "international", "whatsapp", "email", "voice"] as const;
export type Wallet = (typeof WALLETS)[number];
