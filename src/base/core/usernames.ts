// Usernames are unique and looked up without regard to case: `DEMO` is the account `demo`.
// Only ASCII letters fold (usernames are ASCII), the same way on SQLite, PostgreSQL and here,
// so a look-alike such as the Kelvin sign never reaches the account `kelvin`.
import type { ExpressionBuilder } from "kysely";

/** The longest username an account can have (accounts/ holds new ones to its full pattern). */
export const USERNAME_MAX_LENGTH = 64;

/** The form two usernames are compared in. */
export function usernameKey(username: string): string {
  return username.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}

/** WHERE the account's username is `username`, case aside (served by the accounts_username_nocase index). */
export function usernameIs(username: string) {
  // biome-ignore lint/suspicious/noExplicitAny: any table with a username column; the caller's builder is typed
  return (eb: ExpressionBuilder<any, any>) => eb(eb.fn("lower", ["username"]), "=", usernameKey(username));
}
