// The account's view of its SMPP access and open binds (GET /api/v2/smpp/binds, v2-routes.ts) as
// schemas: they serialize the answer and type what the console reads; typebox and schema files only.
import { Type } from "typebox";
import { NullableInteger, OneOf, Time } from "../../base/http/answer-schemas.js";
import { SubAccountVia } from "../../domain/accounts/v2-schemas.js";

/** One open bind, as its holding process last reported it (at most 5 s old). */
export const AccountSmppBind = Type.Object({
  id: Type.String({ description: "The bind's id (the operator's disconnect takes it)." }),
  username: Type.String({ description: "The account bound: the caller, or the sub-account asked for." }),
  mode: OneOf(["transmitter", "receiver", "transceiver"]),
  address: Type.String({ description: "The client's address as the server saw it." }),
  port: Type.Integer(),
  tls: Type.Boolean(),
  bound_at: Time,
  submits: Type.Integer({ description: "submit_sm, data_sm and submit_multi since it bound." }),
  submits_per_second: Type.Number({ description: "Their rate over the last 5 s." }),
});

/** The account's SMPP access as the operator set it, and its binds open in any process, oldest first. */
export const AccountSmppBinds = Type.Object({
  enabled: Type.Boolean({ description: "Whether the account has an SMPP password (no password, no binds)." }),
  max_binds: NullableInteger({ description: "Binds it may have open at once; 0 = no limit; null without access." }),
  submits_per_second: NullableInteger({ description: "Over all its binds of one process; 0 = no limit." }),
  allowed_ips: Type.Union([Type.Array(Type.String()), Type.Null()], {
    description: "Where binds may come from; null = anywhere.",
  }),
  binds: Type.Array(AccountSmppBind),
  subaccount_via: SubAccountVia,
});
