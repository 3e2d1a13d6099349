// The step between a console password that passed and the session (two-factor sign-in): a
// random token handed to the browser, bound to the login that passed and to its address, kept
// in the store (any process of the gateway may take the next request), short-lived and single
// use. `totp`: a code completes the sign-in; `enrol`: the login must set up a factor first (its
// account or the operator requires one). Wrong codes are counted by the login locks like wrong
// passwords; a challenge also ends after a few of them, or when it expires.
import { createHash, randomBytes } from "node:crypto";
import type { Db } from "../../base/store/store.js";
import type { LoginIdentity, SecondStep } from "./two-factor.js";

/** How long a challenge lasts: a code is typed in a minute; an enrolment (scan, type) takes longer. */
const CHALLENGE_MS: Record<SecondStep, number> = { totp: 5 * 60_000, enrol: 15 * 60_000 };
/** Wrong codes a challenge takes before it ends (the login locks count them as well). */
const CHALLENGE_FAILURES = 5;

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

export interface Challenge extends LoginIdentity {
  step: SecondStep;
  address: string;
  expiresAt: number;
}

/** A new challenge for the login; answers its token (only its SHA-256 is stored). */
export async function issueChallenge(
  db: Db,
  now: number,
  identity: LoginIdentity,
  step: SecondStep,
  address: string,
): Promise<{ token: string; expiresAt: number }> {
  // Challenges are few and short: the ended ones are swept here, not by a timer.
  await db.deleteFrom("sign_in_challenges").where("expires_at", "<=", now).execute();
  const token = randomBytes(32).toString("base64url");
  const expiresAt = now + CHALLENGE_MS[step];
  await db
    .insertInto("sign_in_challenges")
    .values({
      token_hash: sha256(token),
      account_id: identity.accountId,
      login: identity.login,
      step,
      address,
      failures: 0,
      created_at: now,
      expires_at: expiresAt,
    })
    .execute();
  return { token, expiresAt };
}

/**
 * The live challenge a token names, of `step`, from `address` (a challenge is not carried to
 * another address); undefined otherwise.
 */
export async function findChallenge(
  db: Db,
  token: string,
  step: SecondStep,
  address: string,
  now: number,
): Promise<Challenge | undefined> {
  const row = await db
    .selectFrom("sign_in_challenges")
    .selectAll()
    .where("token_hash", "=", sha256(token))
    .executeTakeFirst();
  if (!row || row.expires_at <= now || row.step !== step || row.address !== address) return undefined;
  return { accountId: Number(row.account_id), login: row.login, step, address, expiresAt: Number(row.expires_at) };
}

/** Ends a challenge once it has served; true for the one caller that ended it. */
export async function takeChallenge(db: Db, token: string, now: number): Promise<boolean> {
  const result = await db
    .deleteFrom("sign_in_challenges")
    .where("token_hash", "=", sha256(token))
    .where("expires_at", ">", now)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** Counts a wrong code against the challenge, which ends at the last one it takes. */
export async function challengeFailed(db: Db, token: string): Promise<void> {
  const hash = sha256(token);
  await db
    .updateTable("sign_in_challenges")
    .set((eb) => ({ failures: eb("failures", "+", 1) }))
    .where("token_hash", "=", hash)
    .execute();
  await db
    .deleteFrom("sign_in_challenges")
    .where("token_hash", "=", hash)
    .where("failures", ">=", CHALLENGE_FAILURES)
    .execute();
}
