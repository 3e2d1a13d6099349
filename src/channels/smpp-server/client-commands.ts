// The requests a client connection (bind.ts) takes, by kind: the three binds, and the requests a
// transmitter makes within its window (the three submits, query_sm and cancel_sm), answered as they are decided.
import { COMMAND, SERVER_COMMAND } from "../../base/smpp/index.js";

export type BindMode = "transmitter" | "receiver" | "transceiver";
export type SubmitCommand = "submit_sm" | "data_sm" | "submit_multi";
export type WindowedCommand = SubmitCommand | "query_sm" | "cancel_sm";

/** The windowed commands that are submits (counted and throttled as such); the others ask about one. */
export function isSubmit(command: WindowedCommand): command is SubmitCommand {
  return command !== "query_sm" && command !== "cancel_sm";
}

/** A windowed request's answer: its command_status and the body of its `_resp`, if it has one. */
export interface RequestAnswer {
  status: number;
  body?: Buffer;
}

export const BIND_MODES = new Map<number, BindMode>([
  [COMMAND.bind_transmitter, "transmitter"],
  [COMMAND.bind_receiver, "receiver"],
  [COMMAND.bind_transceiver, "transceiver"],
]);

export const WINDOWED = new Map<number, WindowedCommand>([
  [COMMAND.submit_sm, "submit_sm"],
  [COMMAND.data_sm, "data_sm"],
  [SERVER_COMMAND.submit_multi, "submit_multi"],
  [SERVER_COMMAND.query_sm, "query_sm"],
  [SERVER_COMMAND.cancel_sm, "cancel_sm"],
]);
