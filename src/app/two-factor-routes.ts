// The account's two-factor policy and its logins' factors, on v2 (decision 0128):
//   GET  /api/v2/two-factor/policy          whether every console login of the account must have a
//                                           factor: the account's setting, and for an operator account
//                                           the gateway's (TWO_FACTOR_OPERATORS)
//   PUT  /api/v2/two-factor/policy          {required}: the account's setting (audited); an admin
//                                           turns it on, only an owner off (decision 0182)
//   DELETE /api/v2/two-factor/logins/:login an owner resets a login's factor: its sessions end, and it
//                                           signs in with its password alone, or enrols again where a
//                                           factor is required
// The operator's reset of any account's login is /admin/api/accounts/:username/two-factor (admin/).
import { Type } from "typebox";
import { GatewayError } from "../base/core/errors.js";
import { resourceAnswer } from "../base/http/answer-schemas.js";
import type { TypedRoutes } from "../base/http/typed-routes.js";
import type { Runtime } from "../base/runtime/runtime.js";
import {
  actorOf,
  guardOwnerLogin,
  ownerRoleOf,
  resetTwoFactor,
  setTwoFactorRequired,
  twoFactorRequired,
} from "../domain/auth/index.js";
import { TwoFactorPolicy, TwoFactorPolicyRequest, TwoFactorReset } from "./two-factor-schemas.js";

type Deps = Pick<Runtime, "store" | "clock" | "config">;

export function registerV2TwoFactorRoutes(v2: TypedRoutes, ctx: Deps): void {
  const db = ctx.store.db;
  const resource = { envelope: "status" } as const;
  const operatorsRequired = () => ctx.config.twoFactorOperators === "required";
  const policyOf = async (accountId: number, role: string) => {
    const policy = await twoFactorRequired(db, { accountId, role }, operatorsRequired());
    return { required: policy.account_setting, in_force: policy.required, required_by: policy.by };
  };

  v2.get(
    "/two-factor/policy",
    {
      config: resource,
      schema: {
        operationId: "getTwoFactorPolicy",
        summary: "Whether every console login of the account must sign in with a second factor (TOTP)",
        tags: ["account"],
        response: { 200: resourceAnswer(TwoFactorPolicy) },
      },
    },
    async (request) => {
      const principal = request.principal!;
      return { status: "success", data: await policyOf(principal.accountId, principal.role) };
    },
  );

  v2.put(
    "/two-factor/policy",
    {
      config: resource,
      schema: {
        operationId: "setTwoFactorPolicy",
        summary: "Requires a second factor of every console login of the account, or stops requiring it",
        tags: ["account"],
        body: TwoFactorPolicyRequest,
        response: { 200: resourceAnswer(TwoFactorPolicy) },
      },
    },
    async (request) => {
      const principal = request.principal!;
      // Only an owner turns it off (decision 0182): the caller's role, a key's its maker's.
      const role = principal.userRole ?? ownerRoleOf(principal.role);
      const who = { clock: ctx.clock, actor: actorOf(request), role };
      await setTwoFactorRequired(ctx.store, who, principal.accountId, request.body.required);
      return { status: "success", data: await policyOf(principal.accountId, principal.role) };
    },
  );

  v2.delete(
    "/two-factor/logins/:login",
    {
      config: { ...resource, errors: [404] },
      schema: {
        operationId: "resetTwoFactor",
        summary:
          "Resets a console login's second factor (a lost phone): it signs in with its password, or enrols again",
        tags: ["account"],
        params: Type.Object({ login: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: { 200: resourceAnswer(TwoFactorReset) },
      },
    },
    async (request) => {
      const principal = request.principal!;
      const identity = { accountId: principal.accountId, login: request.params.login };
      await guardOwnerLogin(db, principal, request.params.login);
      const who = { clock: ctx.clock, actor: actorOf(request) };
      // The login's sessions end with its factor (the caller's own stays).
      if (!(await resetTwoFactor(ctx.store, who, identity, principal, principal.sessionId)))
        throw new GatewayError("not_found", `The login "${request.params.login}" has no second factor.`);
      return { status: "success", data: { login: request.params.login, reset: true } };
    },
  );
}
