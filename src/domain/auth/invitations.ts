// An invitation sent again (issue 42; decision 0132): a user still invited (no password yet)
// gets a new single-use link, valid INVITATION_DAYS from now; the old link's hash is replaced
// in the same write, so it stops working at once. Audited as `user.invite_resend`. An invited
// owner's link only by an owner: whoever holds the link sets the owner's password (an admin
// would make itself an owner), so an admin is refused as for every other action on an owner.
import { createHash, randomBytes } from "node:crypto";
import { isoUtc } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import type { Store } from "../../base/store/store.js";
import { type Audited, recordChange } from "../audit/index.js";
import type { UserRole } from "./user-roles.js";
import { describeUser, findUser, guardOwnership, INVITATION_DAYS, type UsersAccount } from "./users.js";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const asIso = (ms: number | null) => (ms === null ? null : isoUtc(new Date(Number(ms))));

/** A new link for an invited user; the token is answered once (kept only as its SHA-256). */
export async function reissueInvitation(
  store: Store,
  who: Audited & { role: UserRole },
  account: UsersAccount,
  login: string,
) {
  const token = randomBytes(32).toString("base64url");
  const now = who.clock.now().getTime();
  const expiresAt = now + INVITATION_DAYS * 86_400_000;
  const row = await store.transaction(async (trx) => {
    const user = await findUser(trx, account.id, login);
    if (!user) throw new GatewayError("not_found", `No user "${login.slice(0, 64)}" in this account.`);
    guardOwnership(who.role, user.user_role);
    if (user.password_hash !== null) {
      throw new GatewayError(
        "conflict",
        `${user.login} has set a password already: there is no invitation to send again (change their password instead).`,
      );
    }
    const updated = await trx
      .updateTable("account_users")
      .set({ invite_hash: sha256(token), invite_expires_at: expiresAt, updated_at: now })
      .where("id", "=", user.id)
      // A link accepted meanwhile is not re-opened.
      .where("password_hash", "is", null)
      .returningAll()
      .executeTakeFirst();
    if (!updated) throw new GatewayError("conflict", `${user.login} has just set a password.`);
    await recordChange(trx, who, {
      action: "user.invite_resend",
      target: `user ${user.login} of ${account.username}`,
      accountId: account.id,
      // Times as the answers write them (they were epoch milliseconds).
      before: { invitation_expires_at: asIso(user.invite_expires_at) },
      after: { invitation_expires_at: asIso(expiresAt), email: user.email },
    });
    return updated;
  });
  return { user: describeUser(row), invitation: { token, expiresAt } };
}
