// An account's users and the operator's staff (issue 42, item 1; decision 0126):
//   GET|POST /api/v2/users, PATCH|DELETE /api/v2/users/{login}, DELETE /api/v2/users/{login}/sessions,
//   POST /api/v2/users/{login}/invitation (a new link for an invited user; decision 0132)
//   GET|POST /admin/api/staff, PATCH|DELETE /admin/api/staff/{login}, DELETE .../{login}/sessions,
//   POST /admin/api/staff/{login}/invitation
// Both are one service on the caller's own account (an operator's staff are the users of its
// operator-role account). A user added without a password gets an invitation: its link is in
// the answer once, and mailed to the user's email through the gateway's own relay (SMTP_URL).
import type { FastifyRequest } from "fastify";
import { type Static, Type } from "typebox";
import { isoUtc } from "../base/core/clock.js";
import { resourceAnswer } from "../base/http/answer-schemas.js";
import { operatorAnswer, type TypedRoutes } from "../base/http/typed-routes.js";
import type { Runtime } from "../base/runtime/runtime.js";
import {
  actorOf,
  createUser,
  deleteUser,
  endUserSessions,
  listUsers,
  ownerRoleOf,
  reissueInvitation,
  updateUser,
} from "../domain/auth/index.js";
import { CreatedUser, SessionsEnded, User, UserList, UserRemoved } from "../domain/auth/user-schemas.js";
import { consoleBaseFor, invitationMailer, invitationUrl } from "./invitation-mail.js";

type Deps = Pick<Runtime, "store" | "clock" | "config" | "logger">;

const LoginParams = Type.Object({ login: Type.String({ minLength: 1, maxLength: 64 }) });
const NewUser = Type.Object(
  {
    login: Type.String({ minLength: 1, maxLength: 64 }),
    user_role: Type.String({ minLength: 1, maxLength: 32 }),
    email: Type.Optional(Type.String({ maxLength: 254 })),
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    display_name: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false, title: "NewUser" },
);
const UserChange = Type.Object(
  {
    user_role: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
    email: Type.Optional(Type.String({ maxLength: 254 })),
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    display_name: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false, title: "UserChange" },
);

/** The users service as both families use it, on the caller's own account. */
function usersService(ctx: Deps, onClose: (close: () => void) => void) {
  const mailer = invitationMailer(ctx.config, (error, account, login) =>
    // The link is in the answer all the same: the person who invited can hand it over.
    ctx.logger.warn({ err: error, account, login }, "the invitation email could not be sent"),
  );
  onClose(() => mailer.close());

  const accountOf = (request: FastifyRequest) => {
    const p = request.principal!;
    return { id: p.accountId, username: p.username, role: p.role };
  };
  const whoOf = (request: FastifyRequest) => {
    const p = request.principal!;
    return { clock: ctx.clock, actor: actorOf(request), role: p.userRole ?? ownerRoleOf(p.role) };
  };
  /** The user with the invitation's link (from `base`, consoleBaseFor's), mailed to them. */
  async function withLink<U extends { login: string; email: string | null }>(
    request: FastifyRequest,
    base: string,
    user: U,
    invitation: { token: string; expiresAt: number },
  ) {
    const url = invitationUrl(base, invitation.token);
    const emailed = await mailer.send(user.email, accountOf(request).username, user.login, url);
    return { ...user, invitation: { url, expires_at: isoUtc(new Date(invitation.expiresAt)), emailed } };
  }

  return {
    list: (request: FastifyRequest) => listUsers(ctx.store.db, request.principal!.accountId),
    async create(request: FastifyRequest, body: Static<typeof NewUser>) {
      // Checked before the user is added: an invitation is one without a password.
      const base = body.password === undefined ? consoleBaseFor(ctx.config, request) : "";
      const { user, invitation } = await createUser(ctx.store, whoOf(request), accountOf(request), body);
      return invitation ? withLink(request, base, user, invitation) : user;
    },
    async reinvite(request: FastifyRequest, login: string) {
      const base = consoleBaseFor(ctx.config, request);
      const { user, invitation } = await reissueInvitation(ctx.store, whoOf(request), accountOf(request), login);
      return withLink(request, base, user, invitation);
    },
    update: (request: FastifyRequest, login: string, body: Static<typeof UserChange>) =>
      updateUser(ctx.store, whoOf(request), accountOf(request), login, body),
    async remove(request: FastifyRequest, login: string) {
      await deleteUser(ctx.store, whoOf(request), accountOf(request), login);
      return { login: login.toLowerCase(), removed: true };
    },
    async endSessionsOf(request: FastifyRequest, login: string) {
      return { ended: await endUserSessions(ctx.store, whoOf(request), accountOf(request), login) };
    },
  };
}

export function registerV2UserRoutes(v2: TypedRoutes, ctx: Deps): void {
  const users = usersService(ctx, (close) => v2.addHook("onClose", async () => close()));
  const tags = ["users"];
  const config = { envelope: "status", errors: [404, 409] } as const;
  const ok = <T>(data: T) => ({ status: "success" as const, data });
  v2.get(
    "/users",
    {
      config,
      schema: {
        operationId: "listUsers",
        summary: "The account's users: login, email, name, role, and whether an invitation is pending",
        tags,
        response: { 200: resourceAnswer(UserList) },
      },
    },
    async (request) => ok(await users.list(request)),
  );
  v2.post(
    "/users",
    {
      config,
      schema: {
        operationId: "createUser",
        summary:
          "Adds a user: with a password, ready to sign in; without one, an invitation link (answered once, and emailed)",
        tags,
        body: NewUser,
        response: { 201: resourceAnswer(CreatedUser) },
      },
    },
    async (request, reply) => reply.code(201).send(ok(await users.create(request, request.body))),
  );
  v2.patch(
    "/users/:login",
    {
      config,
      schema: {
        operationId: "updateUser",
        summary: "Changes a user's role, email, name or password; a new role or password ends their sessions",
        tags,
        params: LoginParams,
        body: UserChange,
        response: { 200: resourceAnswer(User) },
      },
    },
    async (request) => ok(await users.update(request, request.params.login, request.body)),
  );
  v2.delete(
    "/users/:login",
    {
      config,
      schema: {
        operationId: "deleteUser",
        summary: "Removes a user and ends their sessions",
        tags,
        params: LoginParams,
        response: { 200: resourceAnswer(UserRemoved) },
      },
    },
    async (request) => ok(await users.remove(request, request.params.login)),
  );
  v2.delete(
    "/users/:login/sessions",
    {
      config,
      schema: {
        operationId: "endUserSessions",
        summary: "Ends every console session of one of the account's users",
        tags,
        params: LoginParams,
        response: { 200: resourceAnswer(SessionsEnded) },
      },
    },
    async (request) => ok(await users.endSessionsOf(request, request.params.login)),
  );
  v2.post(
    "/users/:login/invitation",
    {
      config,
      schema: {
        operationId: "resendInvitation",
        summary: "Sends an invited user a new invitation link (answered once, and emailed); the old link stops working",
        tags,
        params: LoginParams,
        response: { 201: resourceAnswer(CreatedUser) },
      },
    },
    async (request, reply) => reply.code(201).send(ok(await users.reinvite(request, request.params.login))),
  );
}

/** The operator's staff: the users of the operator's own account, with the staff roles. */
export function registerStaffRoutes(admin: TypedRoutes, ctx: Deps): void {
  const users = usersService(ctx, (close) => admin.addHook("onClose", async () => close()));
  const ok = <T>(data: T) => ({ status: "success" as const, data });
  admin.get("/staff", { schema: { response: operatorAnswer(UserList) } }, async (request) =>
    ok(await users.list(request)),
  );
  admin.post("/staff", { schema: { body: NewUser, response: operatorAnswer(CreatedUser) } }, async (request, reply) =>
    reply.code(201).send(ok(await users.create(request, request.body))),
  );
  admin.patch(
    "/staff/:login",
    { schema: { params: LoginParams, body: UserChange, response: operatorAnswer(User) } },
    async (request) => ok(await users.update(request, request.params.login, request.body)),
  );
  admin.delete(
    "/staff/:login",
    { schema: { params: LoginParams, response: operatorAnswer(UserRemoved) } },
    async (request) => ok(await users.remove(request, request.params.login)),
  );
  admin.delete(
    "/staff/:login/sessions",
    { schema: { params: LoginParams, response: operatorAnswer(SessionsEnded) } },
    async (request) => ok(await users.endSessionsOf(request, request.params.login)),
  );
  admin.post(
    "/staff/:login/invitation",
    { schema: { params: LoginParams, response: operatorAnswer(CreatedUser) } },
    async (request, reply) => reply.code(201).send(ok(await users.reinvite(request, request.params.login))),
  );
}
