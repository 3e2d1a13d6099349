// A refused submit_sm, data_sm or submit_multi, to the log of refusals: the account, the
// client's address, what it asked (destinations, source, text decoded by its data_coding; read
// again from the PDU only when the log's caps take it) and the command_status answered, written
// as SMPP writes it (0x00000407) with the status's name; the bind's system_id as the username its
// login named, on a refused submit's row and on each destination a submit_multi left out.
import { randomUUID } from "node:crypto";
import { readDataSm, readSubmitMulti, readSubmitSm, TLV } from "../../base/smpp/index.js";
import type { LeftOutRecipient, RefusalRecorder } from "../../domain/refusals/index.js";
import type { Bind } from "./bind.js";
import type { SubmitCommand } from "./client-commands.js";
import { smppStatusText } from "./status.js";
import { decodeSubmitText, type SubmitResult } from "./submit.js";

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

/**
 * The text a submit carried, for the log: half a surrogate pair alone (refused ESME_RINVDCS)
 * written as U+FFFD, as both engines then store it alike.
 */
function loggedText(fields: NonNullable<ReturnType<typeof fieldsOf>>): string {
  return decodeSubmitText(
    fields.tlvs.get(TLV.message_payload) ?? fields.shortMessage,
    fields.dataCoding,
  ).toWellFormed();
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
        text = loggedText(fields);
      } catch {
        text = undefined;
      }
    }
    const answer = smppStatusText(result.status);
    return {
      operation: command,
      recipients: fields?.destinations ?? [],
      sender: fields?.source,
      text,
      username: bind.account?.systemId,
      httpStatus: null,
      code: result.code ?? answer.slice(answer.indexOf(" ") + 1),
      answer,
      reason: result.reason,
      // SMPP has no request id: one of ours, as every refusal has one.
      requestId: requestIdOf(bind),
      upline: result.upline,
    };
  });
}

const requestIdOf = (bind: Bind) => `smpp-${bind.id}-${randomUUID().slice(0, 8)}`;

/** An accepted submit_multi's destinations left out (each in its unsuccess_sme too), a row each. */
export function recordLeftOut(
  log: RefusalRecorder | undefined,
  bind: Bind,
  body: Buffer,
  result: { messageId: string; leftOut?: LeftOutRecipient[] },
): void {
  const accountId = bind.account?.principal.accountId;
  if (!log || !result.leftOut || accountId === undefined) return;
  const fields = fieldsOf("submit_multi", body);
  let text: string | undefined;
  try {
    text = fields ? loggedText(fields) : undefined;
  } catch {
    text = undefined;
  }
  log.recordLeftOut(
    { family: "smpp", accountId, address: bind.address },
    {
      broadcastId: result.messageId,
      operation: "submit_multi",
      sender: fields?.source,
      text,
      username: bind.account?.systemId,
      httpStatus: null,
      answer: smppStatusText(0),
      requestId: requestIdOf(bind),
      recipients: result.leftOut,
    },
  );
}
