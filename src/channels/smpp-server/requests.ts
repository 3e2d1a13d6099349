// The requests a bound client makes within its window, answered (bind.ts hands them over):
// submit_sm, data_sm and submit_multi read, submitted (submit.ts), counted and, when refused,
// logged (refusal-record.ts); query_sm (query.ts); cancel_sm (cancel.ts).
import type { Metrics } from "../../base/runtime/metrics.js";
import {
  cstringBody,
  MalformedPdu,
  readDataSm,
  readSubmitMulti,
  readSubmitSm,
  submitMultiRespBody,
} from "../../base/smpp/index.js";
import type { RefusalRecorder } from "../../domain/refusals/index.js";
import type { Bind } from "./bind.js";
import { answerCancel, type CancelDeps } from "./cancel.js";
import { isSubmit, type RequestAnswer, type SubmitCommand, type WindowedCommand } from "./client-commands.js";
import { answerQuery } from "./query.js";
import { recordLeftOut, recordRefusal } from "./refusal-record.js";
import { STATUS } from "./status.js";
import type { SubmitResult, Submitter } from "./submit.js";

export interface RequestDeps extends CancelDeps {
  submitter: Submitter;
  metrics: Pick<Metrics, "smppSubmits">;
  refusals?: RefusalRecorder;
}

export async function answerRequest(
  deps: RequestDeps,
  bind: Bind,
  command: WindowedCommand,
  body: Buffer,
): Promise<RequestAnswer> {
  const accountId = bind.account!.principal.accountId;
  if (!isSubmit(command)) {
    return command === "query_sm" ? answerQuery(deps, accountId, body) : answerCancel(deps, accountId, body);
  }
  bind.submits++;
  const result = await submit(deps.submitter, bind, command, body);
  if (result.status !== STATUS.ESME_ROK) recordRefusal(deps.refusals, bind, command, body, result);
  else if ("leftOut" in result) recordLeftOut(deps.refusals, bind, body, result);
  const label = { [STATUS.ESME_ROK]: "accepted", [STATUS.ESME_RTHROTTLED]: "throttled" }[result.status] ?? "refused";
  deps.metrics.smppSubmits.inc({ account_id: String(accountId), result: label });
  // SMPP 3.4 (4.4.2): a refused submit's response has no body.
  if (result.status !== STATUS.ESME_ROK) return { status: result.status };
  return {
    status: result.status,
    body:
      command === "submit_multi"
        ? submitMultiRespBody(result.messageId, "failed" in result ? (result.failed ?? []) : [])
        : cstringBody(result.messageId),
  };
}

async function submit(submitter: Submitter, bind: Bind, command: SubmitCommand, body: Buffer): Promise<SubmitResult> {
  let fields: ReturnType<typeof readSubmitSm>;
  try {
    fields =
      command === "submit_sm" ? readSubmitSm(body) : command === "data_sm" ? readDataSm(body) : readSubmitMulti(body);
  } catch (error) {
    if (error instanceof MalformedPdu) return { status: error.status, messageId: "", reason: error.message };
    throw error;
  }
  if (command === "submit_multi" && (fields.destinations.length === 0 || fields.destinations.length > 255)) {
    return { status: STATUS.ESME_RINVNUMDESTS, messageId: "", reason: "no destination" };
  }
  return submitter.submit(bind, fields, command === "submit_multi");
}
