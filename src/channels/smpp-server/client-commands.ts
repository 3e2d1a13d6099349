// The requests a client connection (bind.ts) takes, by kind: the three binds and the three submits.
import { COMMAND, SERVER_COMMAND } from "../../base/smpp/index.js";

export type BindMode = "transmitter" | "receiver" | "transceiver";
export type SubmitCommand = "submit_sm" | "data_sm" | "submit_multi";

export const BIND_MODES = new Map<number, BindMode>([
  [COMMAND.bind_transmitter, "transmitter"],
  [COMMAND.bind_receiver, "receiver"],
  [COMMAND.bind_transceiver, "transceiver"],
]);

export const SUBMITS = new Map<number, SubmitCommand>([
  [COMMAND.submit_sm, "submit_sm"],
  [COMMAND.data_sm, "data_sm"],
  [SERVER_COMMAND.submit_multi, "submit_multi"],
]);
