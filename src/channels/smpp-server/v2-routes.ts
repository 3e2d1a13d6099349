// The account's own SMPP binds on v2 (GET /api/v2/smpp/binds): whether its SMPP client is
// connected, from where and since when, in any process (the registry's table), with the access
// the operator gave it; a reseller reads those of any account of its tree below it with
// `?subaccount=` (another tree's is 404, as on the message reads: accounts/ readableAccount).
import { Type } from "typebox";
import { resourceAnswer } from "../../base/http/answer-schemas.js";
import type { TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { readableAccount, subaccountVia } from "../../domain/accounts/index.js";
import { SubAccountParam } from "../../domain/accounts/v2-schemas.js";
import { listBinds } from "./registry.js";
import { describeSmppSettings, smppSettingsOf } from "./settings.js";
import { AccountSmppBinds } from "./v2-schemas.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "store" | "clock">;

export function registerV2SmppRoutes(v2: TypedRoutes, ctx: Deps): void {
  v2.get(
    "/smpp/binds",
    {
      config: { envelope: "status" },
      schema: {
        operationId: "listSmppBinds",
        summary: "The account's SMPP access and its clients bound to the SMPP server now, oldest first",
        tags: ["account"],
        querystring: Type.Object({ subaccount: SubAccountParam }),
        response: { 200: resourceAnswer(AccountSmppBinds) },
      },
    },
    async (request) => {
      const db = ctx.store.db;
      const listed = await readableAccount(db, request.principal!.accountId, request.query.subaccount);
      const [settings, binds] = await Promise.all([
        smppSettingsOf(db, listed.id),
        listBinds(db, ctx.clock.now().getTime(), listed.id),
      ]);
      return {
        status: "success",
        data: {
          ...describeSmppSettings(settings),
          // The holding process (host, pid) and a pending disconnect are the operator's.
          binds: binds.map(({ process: _, disconnect_requested: __, ...bind }) => bind),
          ...subaccountVia(listed),
        },
      };
    },
  );
}
