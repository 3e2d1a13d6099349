// The log of refused sends (issue 38, item 3): every send a family or the SMPP server refused,
// with what was asked (bounded; never a credential), the answer in the family's dialect, why,
// when, the request id and the client's address. Written off the request's path in batches,
// capped per account and minute, kept REFUSAL_LOG_DAYS.
//
// Its files (others import this folder through this index only):
//   refusal-log.ts      RefusalLog: record() checks the caps and buffers; recordLeftOut() a row per
//                       recipient an accepted send went on without; the buffer is written in
//                       batches by the writer handed in; what is dropped is counted
//   left-out.ts         LeftOut, what a family sets on the request (request.leftOut) for the hook
//   rows.ts             the table: batch insert (recipients keyed), the newest-first list with a
//                       cursor (by recipient or broadcast through their indexes), prune by age
//   routes.ts           GET /api/v2/refusals and GET /admin/api/refusals, their query and rows
//   refusal-schemas.ts  the answers' schemas (Refusal, RefusalPage, OperatorRefusalPage)
export { type LeftOut, leftOutOf } from "./left-out.js";
export {
  LEFT_OUT_PER_ACCOUNT_PER_HOUR,
  type LeftOutRecipient,
  type LeftOutSend,
  type NewRefusal,
  REFUSAL_RECIPIENTS,
  REFUSAL_TEXT_CHARS,
  type RefusalDetails,
  type RefusalFamily,
  type RefusalHead,
  RefusalLog,
  type RefusalRecorder,
  type RefusalWriter,
} from "./refusal-log.js";
export {
  describeRefusal,
  operatorRefusalPage,
  REFUSAL_PARAMS,
  type RefusalQuery,
  refusalQuery,
  registerAdminRefusalRoutes,
  registerV2RefusalRoutes,
} from "./routes.js";
export { insertRefusals, listRefusals, pruneRefusals, type RefusalFilter, recipientKey } from "./rows.js";
