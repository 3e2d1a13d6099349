// /console/session: the console's sign-in, the session it is in, and sign-out. Everything else
// the console does goes through the v2 and operator APIs, with the session cookie in place of
// an API key (auth/http.ts).

import { serialize } from "cookie";
import type { FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { GatewayError } from "../../base/core/errors.js";
import { refuseNul } from "../../base/core/text-checks.js";
import { sendJsonError } from "../../base/http/http-errors.js";
import type { TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { Authenticator, Principal, Sessions } from "../../domain/auth/index.js";
import {
  inactiveAccount,
  issueChallenge,
  loginIdentityOf,
  ownerRoleOf,
  SESSION_COOKIE,
  type Session,
  secondStepOf,
  sessionOf,
  sessionTokenOf,
  VIEW_COOKIE,
} from "../../domain/auth/index.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "config" | "store" | "clock"> & { authenticator: Authenticator; sessions: Sessions };

const SignIn = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 256 }),
    /** One of the account's users; left out, the owner login (decision 0126). */
    login: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { additionalProperties: false },
);

/** What the console knows of its session; the CSRF token is readable only by the console's own pages. */
function sessionView(session: Session) {
  return {
    username: session.principal.username,
    role: session.principal.role,
    login: session.principal.login ?? session.principal.username,
    user_role: session.principal.userRole ?? ownerRoleOf(session.principal.role),
    // An operator's read-only view of the account: who looks.
    ...(session.viewer ? { viewer: session.viewer.login, read_only: true } : {}),
    time_zone: session.principal.timeZone,
    csrf_token: session.csrfToken,
    expires_at: new Date(session.expiresAt).toISOString(),
    idle_expires_at: new Date(session.idleExpiresAt).toISOString(),
  };
}

function setSessionCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  token: string,
  maxAgeSeconds: number,
  name = SESSION_COOKIE,
): void {
  reply.header(
    "set-cookie",
    serialize(name, token, {
      httpOnly: true,
      // Strict: the browser sends the cookie on no request another site starts, links included.
      sameSite: "strict",
      path: "/",
      maxAge: maxAgeSeconds,
      secure: request.protocol === "https",
    }),
  );
}

/**
 * Opens the browser's console session for a principal whose sign-in is complete: it replaces the
 * browser's session, and closes a view it had open.
 */
export async function openSession(
  ctx: Deps,
  request: FastifyRequest,
  reply: FastifyReply,
  principal: Principal,
  extra: Record<string, unknown> = {},
) {
  // The view's cookie goes too, even when its view had ended already (idle, expired): it would
  // stand in front of the new session and answer every request 401.
  const viewToken = sessionTokenOf(request, "view");
  const view = viewToken ? await ctx.sessions.find(viewToken) : undefined;
  if (view?.viewer) await ctx.sessions.endView(view.id, { view, address: request.ip });
  if (viewToken) setSessionCookie(request, reply, "", 0, VIEW_COOKIE);
  const previous = sessionTokenOf(request, "own");
  if (previous) await ctx.sessions.endToken(previous);
  const { token, session } = await ctx.sessions.start(principal, {
    address: request.ip,
    userAgent: request.headers["user-agent"],
  });
  setSessionCookie(request, reply, token, ctx.config.sessionMaxHours * 3600);
  return reply.code(201).send({ status: "success", data: { ...sessionView(session), ...extra } });
}

export async function registerSessionRoutes(scope: TypedRoutes, ctx: Deps): Promise<void> {
  // JSON only, as on v2: a form cannot be posted here from another site.
  scope.removeContentTypeParser(["application/x-www-form-urlencoded", "text/plain"]);
  scope.setErrorHandler((error, request, reply) => sendJsonError(request, reply, error, "status"));

  scope.post("/session", { schema: { body: SignIn, hide: true } }, async (request, reply) => {
    const { username, login, password } = request.body;
    // No name holds a NUL, and PostgreSQL's text cannot: the same 400 on both engines, not 401 on one.
    refuseNul(username, "A username", "username");
    refuseNul(login, "A login", "login");
    // The same check, lock-out and -16 rule as every password login of the API; a user's
    // failures locked per login. A second step (two-factor) would take `identity` from here.
    const identity = await ctx.authenticator.verifySignIn(username, login, password, request.ip);
    const principal = identity.principal;
    if (principal.status !== "active") throw inactiveAccount(principal);
    // A login with a second factor, or one its account or the operator requires, signs in in two steps.
    const factorLogin = loginIdentityOf(principal);
    const step = await secondStepOf(
      ctx.store.db,
      factorLogin,
      principal.role,
      ctx.config.twoFactorOperators === "required",
    );
    if (step) {
      const now = ctx.clock.now().getTime();
      const challenge = await issueChallenge(ctx.store.db, now, factorLogin, step, request.ip);
      return reply.code(200).send({
        status: "success",
        data: {
          second_step: step,
          challenge: challenge.token,
          expires_at: new Date(challenge.expiresAt).toISOString(),
        },
      });
    }
    return openSession(ctx, request, reply, principal);
  });

  // Every console page load asks this first: a signed-out browser is not a failed login.
  scope.get("/session", { schema: { hide: true }, config: { asksWhoIsSignedIn: true } }, async (request) => {
    const session = await sessionOf(request, ctx.sessions);
    if (!session) throw new GatewayError("unauthorized", "Not signed in.");
    return { status: "success", data: sessionView(session) };
  });

  // "View as this account": an operator opens an account's console read-only, recorded.
  scope.post(
    "/session/view",
    {
      schema: {
        body: Type.Object({ username: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false }),
        hide: true,
      },
    },
    async (request, reply) => {
      const own = await sessionOf(request, ctx.sessions, "own");
      if (!own) throw new GatewayError("unauthorized", "Not signed in.");
      if (own.principal.role !== "operator") throw new GatewayError("operator_only");
      await endView(request);
      const { token, session } = await ctx.sessions.startView(own.principal, request.body.username, {
        address: request.ip,
        userAgent: request.headers["user-agent"],
      });
      setSessionCookie(request, reply, token, ctx.config.sessionMaxHours * 3600, VIEW_COOKIE);
      return reply.code(201).send({ status: "success", data: sessionView(session) });
    },
  );

  scope.delete("/session/view", { schema: { hide: true } }, async (request, reply) => {
    const ended = await endView(request);
    setSessionCookie(request, reply, "", 0, VIEW_COOKIE);
    return { status: "success", data: { ended } };
  });

  /** Ends the view the request's view cookie names, if any; true when there was one. */
  async function endView(request: FastifyRequest): Promise<boolean> {
    const token = sessionTokenOf(request, "view");
    const view = token ? await ctx.sessions.find(token) : undefined;
    if (!view?.viewer) return false;
    await ctx.sessions.endView(view.id, { view, address: request.ip });
    return true;
  }

  scope.delete("/session", { schema: { hide: true } }, async (request, reply) => {
    // Signing out closes a view the browser had open too.
    if (await endView(request)) setSessionCookie(request, reply, "", 0, VIEW_COOKIE);
    const session = await sessionOf(request, ctx.sessions, "own");
    if (!session) throw new GatewayError("unauthorized", "Not signed in.");
    await ctx.sessions.end(session.id);
    setSessionCookie(request, reply, "", 0);
    return { status: "success", data: { signed_out: true } };
  });
}
