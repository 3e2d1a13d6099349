// Two-factor sign-in in the console (issue 42, item 2; decision 0128):
//   POST   /console/session/totp       {challenge, code}: a sign-in's second step; a TOTP or recovery
//                                      code, counted by the login locks like a password
//   GET    /console/two-factor         the signed-in login's factor and its account's policy
//   POST   /console/two-factor         starts an enrolment: secret, otpauth:// URL, QR code (SVG)
//   POST   /console/two-factor/confirm {code}: the factor is on; its ten recovery codes, shown once;
//                                      the login's other sessions end
//   DELETE /console/two-factor         {code}: turns it off
// The enrolment routes take a sign-in's `enrol` challenge in place of a session (a login that
// must enrol before it has one); confirming with it opens the session. While the browser has an
// operator's view of an account open, the factor routes answer 403 `read_only_view`.
import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import { GatewayError } from "../../base/core/errors.js";
import type { TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { Actor } from "../../domain/audit/index.js";
import {
  type Authenticator,
  asUserLogin,
  challengeFailed,
  confirmEnrolment,
  findChallenge,
  inactiveAccount,
  type LoginIdentity,
  loginActor,
  loginIdentityOf,
  ownerLogin,
  type Principal,
  removeTwoFactor,
  type Sessions,
  sessionOf,
  sessionTokenOf,
  spendSecondFactor,
  startEnrolment,
  takeChallenge,
  twoFactorRequired,
  twoFactorState,
} from "../../domain/auth/index.js";
import { openSession } from "./session-routes.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "config" | "store" | "clock"> & { authenticator: Authenticator; sessions: Sessions };

const ChallengeToken = Type.String({ minLength: 1, maxLength: 128 });
const Code = Type.String({ minLength: 1, maxLength: 32 });
const CHALLENGE_GONE = "This sign-in has expired or was used: sign in again with your password.";

/** Who acts on a factor: a signed-in login, or one that passed its password and must enrol (`challenge`). */
interface Enrollee {
  identity: LoginIdentity;
  principal: Principal;
  actor: Actor;
  challenge?: string;
}

/** A console login acting on its factor, as the audit log records it (auth's one rule for actor_user). */
function consoleActor(principal: Principal, identity: LoginIdentity, address: string, sessionId?: number): Actor {
  const credential = sessionId === undefined ? null : `session:${sessionId}`;
  return loginActor(principal, identity.login, { channel: "console", credential, address });
}

export async function registerTwoFactorRoutes(scope: TypedRoutes, ctx: Deps): Promise<void> {
  const db = ctx.store.db;
  const now = () => ctx.clock.now().getTime();

  scope.post(
    "/session/totp",
    {
      schema: {
        body: Type.Object({ challenge: ChallengeToken, code: Code }, { additionalProperties: false }),
        hide: true,
      },
    },
    async (request, reply) => {
      const { challenge: token, code } = request.body;
      const challenge = await findChallenge(db, token, "totp", request.ip, now());
      if (!challenge) throw new GatewayError("unauthorized", CHALLENGE_GONE);
      let principal: Principal | undefined;
      // A user's wrong codes are counted under its login, as its wrong passwords are (decision 0126).
      const lockedUnder = (account: Principal) =>
        ownerLogin(account.accountId, account.username).login === challenge.login
          ? request.ip
          : `${challenge.login} ${request.ip}`;
      try {
        const account = await ctx.authenticator.principalOf(challenge.accountId);
        if (!account) throw new GatewayError("unauthorized", CHALLENGE_GONE);
        principal = await ctx.authenticator.bySecondFactor(challenge.accountId, lockedUnder(account), (account) =>
          spendSecondFactor(
            ctx.store,
            { clock: ctx.clock, actor: consoleActor(account, challenge, request.ip) },
            challenge,
            code,
          ),
        );
      } catch (error) {
        if (error instanceof GatewayError && error.code === "unauthorized") await challengeFailed(db, token);
        throw error;
      }
      if (!(await takeChallenge(db, token, now()))) throw new GatewayError("unauthorized", CHALLENGE_GONE);
      principal = await asUserLogin(db, principal, challenge.login);
      if (!principal) throw new GatewayError("unauthorized", CHALLENGE_GONE);
      if (principal.status !== "active") throw inactiveAccount(principal);
      return openSession(ctx, request, reply, principal);
    },
  );

  /** The signed-in login (its own session, not a view), or the login an `enrol` challenge names. */
  async function enrollee(request: FastifyRequest, token: string | undefined): Promise<Enrollee> {
    if (token !== undefined) {
      const challenge = await findChallenge(db, token, "enrol", request.ip, now());
      const account = challenge && (await ctx.authenticator.principalOf(challenge.accountId));
      const principal = account && challenge && (await asUserLogin(db, account, challenge.login));
      if (!challenge || !principal) throw new GatewayError("unauthorized", CHALLENGE_GONE);
      return {
        identity: challenge,
        principal,
        actor: consoleActor(principal, challenge, request.ip),
        challenge: token,
      };
    }
    // Not in an operator's view of an account: the page would read as the account's, the factor is
    // the staff login's own (set up, or turned off, with the view closed).
    const viewToken = sessionTokenOf(request, "view");
    const view = viewToken ? await ctx.sessions.find(viewToken) : undefined;
    if (view?.viewer) {
      throw new GatewayError(
        "read_only_view",
        `This is ${view.viewer.login}'s read-only view of ${view.principal.username}: your own second factor is not set up or turned off in it. Close the view first.`,
      );
    }
    const session = await sessionOf(request, ctx.sessions, "own");
    if (!session) throw new GatewayError("unauthorized", "Not signed in.");
    const { principal } = session;
    const identity = loginIdentityOf(principal);
    return { identity, principal, actor: consoleActor(principal, identity, request.ip, session.id) };
  }

  scope.get("/two-factor", { schema: { hide: true } }, async (request) => {
    const { identity, principal } = await enrollee(request, undefined);
    const policy = await twoFactorRequired(db, principal, ctx.config.twoFactorOperators === "required");
    return {
      status: "success",
      data: {
        login: identity.login,
        ...(await twoFactorState(db, identity)),
        required: policy.required,
        required_by: policy.by,
      },
    };
  });

  scope.post(
    "/two-factor",
    {
      schema: {
        body: Type.Optional(Type.Object({ challenge: Type.Optional(ChallengeToken) }, { additionalProperties: false })),
        hide: true,
      },
    },
    async (request, reply) => {
      const { identity } = await enrollee(request, request.body?.challenge);
      const started = await startEnrolment(ctx.store, now(), identity, identity.login);
      // Loaded at the first enrolment: no other request, and no CLI command, pays for it.
      const QRCode = (await import("qrcode")).default;
      const svg = await QRCode.toString(started.otpauth_url, { type: "svg", margin: 1, errorCorrectionLevel: "M" });
      return reply.code(201).send({
        status: "success",
        data: { ...started, qr_code: `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}` },
      });
    },
  );

  scope.post(
    "/two-factor/confirm",
    {
      schema: {
        body: Type.Object({ challenge: Type.Optional(ChallengeToken), code: Code }, { additionalProperties: false }),
        hide: true,
      },
    },
    async (request, reply) => {
      const { identity, principal, actor, challenge } = await enrollee(request, request.body.challenge);
      let confirmed: { recovery_codes: string[] };
      try {
        // Turned on, it ends the login's other sessions; at sign-in (a challenge) every one.
        const sessions = { userId: principal.userId ?? null, keep: challenge ? undefined : principal.sessionId };
        confirmed = await confirmEnrolment(
          ctx.store,
          { clock: ctx.clock, actor },
          identity,
          request.body.code,
          sessions,
        );
      } catch (error) {
        if (challenge && error instanceof GatewayError && error.code === "wrong_code")
          await challengeFailed(db, challenge);
        throw error;
      }
      if (!challenge) return reply.code(200).send({ status: "success", data: confirmed });
      // Enrolled at sign-in: the challenge has served, and the sign-in is complete.
      if (!(await takeChallenge(db, challenge, now()))) throw new GatewayError("unauthorized", CHALLENGE_GONE);
      if (principal.status !== "active") throw inactiveAccount(principal);
      return openSession(ctx, request, reply, principal, confirmed);
    },
  );

  scope.delete(
    "/two-factor",
    { schema: { body: Type.Object({ code: Code }, { additionalProperties: false }), hide: true } },
    async (request) => {
      const { identity, principal, actor } = await enrollee(request, undefined);
      // A code of the factor, counted by the login locks: a session alone does not turn it off.
      try {
        await ctx.authenticator.bySecondFactor(principal.accountId, request.ip, () =>
          spendSecondFactor(ctx.store, { clock: ctx.clock, actor }, identity, request.body.code),
        );
      } catch (error) {
        if (error instanceof GatewayError && error.code === "unauthorized") throw new GatewayError("wrong_code");
        throw error;
      }
      await removeTwoFactor(ctx.store, { clock: ctx.clock, actor }, identity, "two_factor.disable");
      return { status: "success", data: { enabled: false } };
    },
  );
}
