// Console sessions (issue 19): after a sign-in with username and password, a browser's cookie
// stands for the account on the same APIs an API key opens. The cookie holds a random token
// (only its SHA-256 is stored); each session has its own CSRF token, which every
// state-changing request made with the cookie must repeat in a header (auth/http.ts).
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Clock } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import { usernameIs } from "../../base/core/usernames.js";
import type { Store } from "../../base/store/store.js";
import { type Actor, recordChange } from "../audit/index.js";
import type { AccountCredentialRows } from "./account-rows.js";
import { type Principal, principalOfAccount, statusOf } from "./principal.js";
import { ownerRoleOf, type UserRole } from "./user-roles.js";

export const SESSION_COOKIE = "sb_session";
/** An operator's read-only view of an account: while it is set, it stands for the account. */
export const VIEW_COOKIE = "sb_view";
export const CSRF_HEADER = "x-csrf-token";

export interface SessionPolicy {
  /** A session unused for this long ends. */
  sessionIdleMinutes: number;
  /** A session ends this long after the sign-in, however much it is used. */
  sessionMaxHours: number;
}

export interface Session {
  id: number;
  principal: Principal;
  csrfToken: string;
  /** When the session ends unless it is used before (epoch ms; it may end up to a minute later). */
  idleExpiresAt: number;
  /** When it ends whatever happens (epoch ms). */
  expiresAt: number;
  /**
   * An operator's read-only view of the account: the operator who opened it, and the staff login
   * that did (the operator's username for its own login).
   */
  viewer?: Viewer;
}

export interface Viewer {
  accountId: number;
  username: string;
  login: string;
}

/**
 * A use is written to last_seen_at only when the stored one is at least this share of the idle
 * period old (a minute at most): a page's many calls cost one write, and the row every process
 * reads is never more than that behind the session's real last use.
 */
const TOUCH_SHARE_OF_IDLE = 1 / 60;
const TOUCH_AT_MOST_EVERY_MS = 60_000;

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Compares two secrets in constant time. */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export class Sessions {
  constructor(
    private readonly store: Store,
    /** The accounts' rows, from accounts/ (handed in by app/). */
    private readonly accounts: AccountCredentialRows,
    private readonly clock: Clock,
    private readonly policy: SessionPolicy,
  ) {}

  private get idleMs(): number {
    return this.policy.sessionIdleMinutes * 60_000;
  }

  /** How far last_seen_at may lag behind the session's real last use, in any process. */
  private get touchEveryMs(): number {
    return Math.min(TOUCH_AT_MOST_EVERY_MS, this.idleMs * TOUCH_SHARE_OF_IDLE);
  }

  /**
   * Whether a session last written as seen at `lastSeenAt` has been idle too long. Its real last
   * use may be up to touchEveryMs later, unwritten: it ends only once that is idleMs ago too, so
   * never early, and at most touchEveryMs late.
   */
  private idleSince(lastSeenAt: number, now: number): boolean {
    return lastSeenAt + this.touchEveryMs + this.idleMs <= now;
  }

  /** A new session for a principal whose password was just checked; returns the cookie's token. */
  async start(
    principal: Principal,
    client: { address: string; userAgent: string | undefined },
  ): Promise<{ token: string; session: Session }> {
    const now = this.clock.now().getTime();
    const db = this.store.db;
    // Sign-ins are rare and the table small: ended sessions are swept here, not by a timer.
    await db
      .deleteFrom("console_sessions")
      .where((eb) =>
        eb.or([eb("expires_at", "<=", now), eb("last_seen_at", "<=", now - this.idleMs - this.touchEveryMs)]),
      )
      .execute();
    const account = await db
      .selectFrom(this.accounts(db).as("a"))
      .select("a.password_hash")
      .where("a.account_id", "=", principal.accountId)
      .executeTakeFirstOrThrow();
    // A user's session is ended by a change of the user's password, the owner's by the account's.
    const user =
      principal.userId === undefined
        ? undefined
        : await db
            .selectFrom("account_users")
            .select("password_hash")
            .where("id", "=", principal.userId)
            .executeTakeFirstOrThrow();
    const token = randomBytes(32).toString("base64url");
    const csrfToken = randomBytes(32).toString("base64url");
    const expiresAt = now + this.policy.sessionMaxHours * 3_600_000;
    const row = await db
      .insertInto("console_sessions")
      .values({
        token_hash: sha256(token),
        account_id: principal.accountId,
        csrf_token: csrfToken,
        credential_stamp: sha256(user?.password_hash ?? account.password_hash),
        user_id: principal.userId ?? null,
        address: client.address,
        user_agent: client.userAgent?.slice(0, 500) ?? null,
        created_at: now,
        last_seen_at: now,
        expires_at: expiresAt,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    return {
      token,
      session: { id: row.id, principal, csrfToken, idleExpiresAt: Math.min(now + this.idleMs, expiresAt), expiresAt },
    };
  }

  /**
   * An operator's read-only view of `principal`'s account, as a session of that account marked
   * with the operator, and its record (account_views). Returns the view cookie's token.
   */
  async startView(
    viewer: Principal,
    username: string,
    client: { address: string; userAgent: string | undefined },
  ): Promise<{ token: string; session: Session }> {
    const db = this.store.db;
    const account = await db
      .selectFrom(this.accounts(db).as("a"))
      .selectAll()
      .where(usernameIs(username))
      .executeTakeFirst();
    if (!account) throw new GatewayError("not_found", `No account named "${username}".`);
    // A view reads as the account's owner login: of an operator account that is operator_admin,
    // which would lift a staff role above itself. Views are of customer accounts only.
    if (account.role === "operator") throw viewOfOperator(account.username);
    const principal = principalOfAccount(account);
    const started = await this.start(principal, client);
    const now = this.clock.now().getTime();
    // The staff login that looks (decision 0141), not only its operator account.
    const viewerLogin = viewer.login ?? viewer.username;
    const seen: Viewer = { accountId: viewer.accountId, username: viewer.username, login: viewerLogin };
    const userAgent = client.userAgent?.slice(0, 500) ?? null;
    await this.store.transaction(async (trx) => {
      await trx
        .updateTable("console_sessions")
        .set({ viewer_account_id: viewer.accountId })
        .where("id", "=", started.session.id)
        .execute();
      await trx
        .insertInto("account_views")
        .values({
          viewer_account_id: viewer.accountId,
          viewer_login: viewerLogin,
          viewer_user_id: viewer.userId ?? null,
          account_id: principal.accountId,
          session_id: started.session.id,
          address: client.address,
          user_agent: userAgent,
          started_at: now,
          ended_at: null,
        })
        .execute();
      await recordChange(
        trx,
        { clock: this.clock, actor: viewerActor({ ...seen, sessionId: viewer.sessionId }, client.address) },
        {
          action: "account.view",
          target: `account ${principal.username}`,
          accountId: principal.accountId,
          after: { session_id: started.session.id, user_agent: userAgent },
        },
      );
    });
    return {
      token: started.token,
      session: { ...started.session, viewer: seen },
    };
  }

  /**
   * Ends a view: its session, and the time on its record; in the audit log too when its operator
   * closes it (`closedBy`), not when it expires.
   */
  async endView(sessionId: number, closedBy?: { view: Session; address: string }): Promise<void> {
    const now = this.clock.now().getTime();
    await this.store.transaction(async (trx) => {
      const ended = await trx
        .updateTable("account_views")
        .set({ ended_at: now })
        .where("session_id", "=", sessionId)
        .where("ended_at", "is", null)
        .returning("user_agent")
        .executeTakeFirst();
      const viewer = closedBy?.view.viewer;
      if (!ended || !closedBy || !viewer) return;
      const { view, address } = closedBy;
      await recordChange(
        trx,
        { clock: this.clock, actor: viewerActor(viewer, address) },
        {
          action: "account.view_end",
          target: `account ${view.principal.username}`,
          accountId: view.principal.accountId,
          after: { session_id: sessionId, user_agent: ended.user_agent },
        },
      );
    });
    await this.end(sessionId);
  }

  /** The views of an account (or of every account), newest first, with who looked. */
  async views(accountId: number | undefined, limit: number) {
    const db = this.store.db;
    let query = db
      .selectFrom("account_views as v")
      .innerJoin(this.accounts(db).as("a"), "a.account_id", "v.account_id")
      .innerJoin(this.accounts(db).as("o"), "o.account_id", "v.viewer_account_id")
      .select([
        "v.id",
        "a.username as account",
        (eb) => eb.fn.coalesce("v.viewer_login", "o.username").as("viewer"),
        "v.address",
        "v.user_agent",
        "v.started_at",
        "v.ended_at",
      ]);
    if (accountId !== undefined) query = query.where("v.account_id", "=", accountId);
    return query.orderBy("v.id", "desc").limit(limit).execute();
  }

  /**
   * The live session a cookie's token names, or undefined when there is none: never issued,
   * signed out, idle too long, past its end, or its account's password changed since.
   */
  async find(token: string): Promise<Session | undefined> {
    const now = this.clock.now().getTime();
    const db = this.store.db;
    const row = await db
      .selectFrom("console_sessions")
      .innerJoin(this.accounts(db).as("a"), "a.account_id", "console_sessions.account_id")
      .leftJoin("account_users as u", "u.id", "console_sessions.user_id")
      .select([
        "console_sessions.user_id",
        "u.login",
        "u.user_role",
        "u.password_hash as user_password_hash",
        "console_sessions.id",
        "console_sessions.csrf_token",
        "console_sessions.credential_stamp",
        "console_sessions.last_seen_at",
        "console_sessions.expires_at",
        "a.account_id",
        "a.username",
        "a.role",
        "a.status",
        "a.parent_status",
        "a.time_zone",
        "a.password_hash",
        "console_sessions.viewer_account_id",
      ])
      .where("console_sessions.token_hash", "=", sha256(token))
      .executeTakeFirst();
    if (!row) return undefined;
    const ended =
      row.expires_at <= now ||
      this.idleSince(row.last_seen_at, now) ||
      // A user removed ends their sessions (they are deleted with the user, this is the guard).
      (row.user_id !== null && row.user_password_hash === null) ||
      !sameSecret(
        row.credential_stamp,
        sha256(row.user_id === null ? row.password_hash : (row.user_password_hash ?? "")),
      );
    if (ended) {
      if (row.viewer_account_id !== null) await this.endView(row.id);
      else await this.store.db.deleteFrom("console_sessions").where("id", "=", row.id).execute();
      return undefined;
    }
    if (now - row.last_seen_at >= this.touchEveryMs) {
      // Never back: another process may have written a later use meanwhile.
      await this.store.db
        .updateTable("console_sessions")
        .set({ last_seen_at: now })
        .where("id", "=", row.id)
        .where("last_seen_at", "<", now)
        .execute();
    }
    let viewer: Session["viewer"];
    if (row.viewer_account_id !== null) {
      const operator = await db
        .selectFrom(this.accounts(db).as("o"))
        .leftJoin("account_views as v", (join) => join.on("v.session_id", "=", row.id))
        .leftJoin("account_users as u", "u.id", "v.viewer_user_id")
        .select(["o.username", "o.role", "o.status", "v.viewer_login", "v.viewer_user_id", "u.id as user_id"])
        .where("o.account_id", "=", row.viewer_account_id)
        .executeTakeFirst();
      // A view lasts only while its operator is one, and its staff user is still a user; a view
      // of an operator account (opened before they were refused) ends too.
      const staffGone = operator?.viewer_user_id != null && operator.user_id === null;
      if (operator?.role !== "operator" || operator.status !== "active" || staffGone || row.role === "operator") {
        await this.endView(row.id);
        return undefined;
      }
      const login = operator.viewer_login ?? operator.username;
      viewer = { accountId: row.viewer_account_id, username: operator.username, login };
    }
    return {
      id: row.id,
      ...(viewer ? { viewer } : {}),
      principal: {
        accountId: row.account_id,
        username: row.username,
        role: row.role,
        ...statusOf(row),
        timeZone: row.time_zone,
        sessionId: row.id,
        ...(row.user_id === null
          ? { login: row.username, userRole: ownerRoleOf(row.role) }
          : { login: row.login ?? "", userRole: row.user_role as UserRole, userId: row.user_id }),
      },
      csrfToken: row.csrf_token,
      // This request is a use: the session lasts at least the idle period from now.
      idleExpiresAt: Math.min(now + this.idleMs, row.expires_at),
      expiresAt: row.expires_at,
    };
  }

  /** Ends the session a token names, if any (a new sign-in replaces the browser's old session). */
  async endToken(token: string): Promise<void> {
    await this.store.db.deleteFrom("console_sessions").where("token_hash", "=", sha256(token)).execute();
  }

  /** Signs a session out; true when there was one. */
  async end(sessionId: number): Promise<boolean> {
    const result = await this.store.db.deleteFrom("console_sessions").where("id", "=", sessionId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}

/** The refusal of a view of an operator account (the viewer's own, or another operator's). */
function viewOfOperator(username: string): GatewayError {
  return new GatewayError(
    "forbidden",
    `${username} is an operator account: a view is of a customer account. Staff read the operator's own account as their own role, signed in to it.`,
  );
}

/** The operator who opens or closes a view, as the audit log records them: its staff login as actor_user. */
function viewerActor(viewer: Viewer & { sessionId?: number | undefined }, address: string): Actor {
  const credential = viewer.sessionId === undefined ? null : `session:${viewer.sessionId}`;
  const { accountId, username, login } = viewer;
  return { accountId, username, user: login, channel: "console", credential, address };
}
