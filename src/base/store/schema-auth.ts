// auth/'s two-factor tables (auth/two-factor.ts, issue 42 item 2; its older tables are in
// schema-accounts.ts): each login's TOTP
// factor, its recovery codes, the accounts that require a factor, and the sign-in challenges
// between a password that passed and its second step. A login is the account's username (its
// owner) or one of its users' logins, in the lower-case form usernames are compared in.

export interface TwoFactorsTable {
  account_id: number;
  login: string;
  /** The TOTP secret, base32 (RFC 4648, no padding), as the authenticator app holds it. */
  secret: string;
  /** When the first code confirmed the enrolment; null while it is being set up (no factor yet). */
  confirmed_at: number | null;
  /** The last time step (RFC 6238 T) a code was accepted for: that code, or an older one, is refused. */
  last_step: number | null;
  created_at: number;
}

export interface TwoFactorRecoveryCodesTable {
  account_id: number;
  login: string;
  /** SHA-256 of the code (random, 50 bits: no slow hash needed), hex. */
  code_hash: string;
  /** When it was used; a used code is refused. */
  used_at: number | null;
}

export interface TwoFactorPoliciesTable {
  account_id: number;
  /** Every login of the account must have a factor (1): one without is asked to enrol at sign-in. */
  required: number;
  updated_at: number;
}

export interface SignInChallengesTable {
  /** SHA-256 of the challenge token handed to the browser. */
  token_hash: string;
  account_id: number;
  login: string;
  /** `totp`: a code (or recovery code) completes the sign-in; `enrol`: a factor must be set up first. */
  step: "totp" | "enrol";
  address: string;
  /** Wrong codes given to this challenge: past a few it is dropped (the login locks count them too). */
  failures: number;
  created_at: number;
  expires_at: number;
}

export interface TwoFactorTables {
  two_factors: TwoFactorsTable;
  two_factor_recovery_codes: TwoFactorRecoveryCodesTable;
  two_factor_policies: TwoFactorPoliciesTable;
  sign_in_challenges: SignInChallengesTable;
}
