// A refused submit_sm, data_sm or submit_multi, to the log of refusals: the account, the
// client's address, what it asked (destinations, source, text decoded by its data_coding; read
// again from the PDU only when the log's caps take it) and the command_status answered, written
// as SMPP writes it (0x00000407) with the status's name.
import { randomUUID } from "node:crypto";
import { readDataSm, readSubmitMulti, readSubmitSm, TLV } from "../../base/smpp/index.js";
import type { RefusalRecorder } from "../../domain/refusals/index.js";
import type { Bind } from "./bind.js";
import type { SubmitCommand } from "./client-commands.js";
import { STATUS } from "./status.js";
import { decodeSubmitText, type SubmitResult } from "./submit.js";

const NAMES = new Map<number, string>(Object.entries(STATUS).map(([name, status]) => [status, name]));

/** The status as written: eight hex digits. */
const hex = (status: number) => `0x${status.toString(16).toUpperCase().padStart(8, "0")}`;

function fieldsOf(command: SubmitCommand, body: Buffer) {
  try {
    return command === "submit_sm"
      ? readSubmitSm(body)
      : command === "data_sm"
        ? readDataSm(body)
        : readSubmitMulti(body);
  } catch {
    return undefined;
  }
}

export function recordRefusal(
  log: RefusalRecorder | undefined,
  bind: Bind,
  command: SubmitCommand,
  body: Buffer,
  result: SubmitResult,
): void {
  if (!log || !("reason" in result)) return;
  log.record({ family: "smpp", accountId: bind.account?.principal.accountId ?? null, address: bind.address }, () => {
    const fields = fieldsOf(command, body);
    let text: string | undefined;
    if (fields) {
      try {
        text = decodeSubmitText(fields.tlvs.get(TLV.message_payload) ?? fields.shortMessage, fields.dataCoding);
      } catch {
        text = undefined;
      }
    }
    const name = NAMES.get(result.status) ?? "ESME_RUNKNOWNERR";
    return {
      operation: command,
      recipients: fields?.destinations ?? [],
      sender: fields?.source,
      text,
      httpStatus: null,
      code: result.code ?? name,
      answer: `${hex(result.status)} ${name}`,
      reason: result.reason,
      // SMPP has no request id: one of ours, as every refusal has one.
      requestId: `smpp-${bind.id}-${randomUUID().slice(0, 8)}`,
    };
  });
}
