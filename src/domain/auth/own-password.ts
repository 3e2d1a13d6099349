// A user's own password change (issue 42; decision 0132): the caller has checked the current
// password (through the Authenticator's login locks); the new one is stored, every other
// session of the user ends and the one the change came with stays, all in one transaction
// with its audit entry. The owner login's is the account's password (app/password-routes.ts).
import type { Store } from "../../base/store/store.js";
import { type Audited, recordChange } from "../audit/index.js";
import { hashPassword } from "./passwords.js";
import { keepOnlySession } from "./session-lists.js";

/** Who changes their password: one of the account's users, from the session `keep` (none for a key). */
export interface OwnLogin {
  accountId: number;
  username: string;
  userId: number;
  login: string;
  keep: number | undefined;
}

/** Stores a user's new password; answers how many of their other sessions ended. */
export async function changeUserPassword(store: Store, who: Audited, user: OwnLogin, password: string) {
  const passwordHash = await hashPassword(password);
  return store.transaction(async (trx) => {
    await trx
      .updateTable("account_users")
      .set({ password_hash: passwordHash, updated_at: who.clock.now().getTime() })
      .where("id", "=", user.userId)
      .execute();
    const ended = await keepOnlySession(
      trx,
      { accountId: user.accountId, userId: user.userId },
      user.keep,
      passwordHash,
    );
    await recordChange(trx, who, passwordChangeEntry(user.login, user.username, user.accountId, ended));
    return ended;
  });
}

/** The audit entry of a login's own password change: never the password, whether it changed. */
export function passwordChangeEntry(login: string, username: string, accountId: number, sessionsEnded: number) {
  return {
    action: "password.change",
    target: `login ${login} of ${username}`,
    accountId,
    before: { password: "old" },
    after: { password: "changed", sessions_ended: sessionsEnded },
  };
}
