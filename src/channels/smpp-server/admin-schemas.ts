// The operator API's SMPP answers (admin-routes.ts) as schemas: the binds open in any process.
// They serialize the answers and type what the console reads; typebox and schema files only.
import { Type } from "typebox";
import { OneOf, Time } from "../../base/http/answer-schemas.js";

export const SmppBind = Type.Object({
  /** The holding process's random id and a count. */
  id: Type.String(),
  username: Type.String(),
  mode: OneOf(["transmitter", "receiver", "transceiver"]),
  address: Type.String(),
  port: Type.Integer(),
  tls: Type.Boolean(),
  bound_at: Time,
  submits: Type.Integer(),
  submits_per_second: Type.Number(),
  process: Type.Object({ host: Type.String(), pid: Type.Integer() }),
  disconnect_requested: Type.Boolean(),
});

/** DELETE: the bind, and whether it was gone before the answer (202 while its process closes it). */
export const DisconnectedBind = Type.Object({ ...SmppBind.properties, closed: Type.Boolean() });
