// auth/: Who is calling.
//
// Its files (others import this folder through this index only):
//   api-keys.ts        create (shown once), hash (SHA-256), list, revoke, change (name, scopes, addresses, rate)
//   passwords.ts       argon2 hashing; the verified username+password cache (HMAC-keyed); the dummy hash
//                      an unknown username's password is checked against (same time as a wrong one);
//                      refusePasswordControls, the control characters no password set may hold
//   authenticator.ts   credentials → Principal, with the key cache and the login lock-out
//   auth-changes.ts    how a change of credentials reaches every process's caches (signal, SQLite epoch)
//   login-checks.ts    password checks running in this process: shared by identical attempts, bounded
//                      per address and account before the store's reservation
//   account-rows.ts    AccountCredentialRows: the account's row as auth reads it with a credential, a
//                      select accounts/ gives (handed in by app/) and auth joins in its statements
//   login-locks.ts     password checks reserved before they run, per (account, source address) in
//                      login_failures and per account: the address is locked first, the account when
//                      many addresses are or its budget is spent; list and clear (operator API, CLI)
//   sessions.ts        console sessions (console_sessions): start after a password check, find by the
//                      cookie's token (idle and absolute expiry, ended by a password change), sign-out
//   totp.ts            RFC 6238 codes (otplib): a login's secret, its otpauth:// URL, a code's time step;
//                      recovery codes (random, kept as SHA-256)
//   two-factor.ts      a login's factor (two_factors): enrol, confirm (ten recovery codes), spend a code at
//                      sign-in (its time step kept: no code twice), disable or reset; the account's policy
//   sign-in-challenges.ts  the stored, single-use step between a console password and its session
//                      (`totp`: a code completes it; `enrol`: a factor must be set up first)
//   http.ts            where each family finds credentials in a request (v2 placements, legacy params);
//                      authenticateCaller: the API key, else the console session cookie, whose CSRF
//                      token a request other than GET/HEAD must repeat
//   principal.ts       Principal (who is calling: the account, and the user signed in), SignInIdentity;
//                      the status it acts with (a parent's blocked one, decision 0148) and its refusal
//   key-principals.ts  an API key read with its account as the principal it stands for (scopes, allow-list)
//   user-roles.ts      the roles of users and staff, the capabilities each has, what a key can do beyond
//                      a caller (no imports: the console's too)
//   users.ts           an account's users: add (with a password, or an invitation), change, remove, accept
//   invitations.ts     an invitation sent again: a new single-use link, the old one dead at once
//   own-password.ts    a user's own password change: other sessions ended, this one kept, audited
//   user-schemas.ts    the users' and sessions' answers as schemas (typebox only: the console's types)
//   session-lists.ts   a user's own sessions listed and ended; a user's all ended by an owner
//   key-scopes.ts      what a credential may do: a key's scopes (send, read, manage, billing) and address
//                      allow-list, an account's allow-list for password logins; the check a route runs
//   rate-limits.ts     per-API-key request limits (rate-limiter-flexible), counted in Redis when
//                      REDIS_URL is set, in memory otherwise (and while Redis is down)
export type { AccountCredentialRows, AccountCredentials } from "./account-rows.js";
export * from "./api-keys.js";
export {
  accountCredentialsChanged,
  accountsCredentialsChanged,
  apiKeyRevoked,
  clearLoginLocks,
  listenForAuthChanges,
} from "./auth-changes.js";
export * from "./authenticator.js";
export * from "./http.js";
export * from "./invitations.js";
export * from "./key-scopes.js";
export * from "./login-locks.js";
export * from "./own-password.js";
export * from "./passwords.js";
export { inactiveAccount, loginOf, statusOf } from "./principal.js";
export * from "./rate-limits.js";
export * from "./session-lists.js";
export * from "./sessions.js";
export * from "./sign-in-challenges.js";
export { TOTP_PERIOD } from "./totp.js";
export * from "./two-factor.js";
export * from "./user-roles.js";
export * from "./users.js";
