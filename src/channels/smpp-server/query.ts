// query_sm (SMPP 3.4, 4.8): the state of a message whose id the client was given, in
// submit_sm_resp or data_sm_resp (a queue id; every part of a long message was given its
// message's id) or in submit_multi_resp (a broadcast id). Only the bound account's messages are
// found, so another account's id is answered as an unknown one is; docs/decisions/0153.
import {
  absoluteTime,
  MalformedPdu,
  MESSAGE_STATE,
  type QuerySm,
  querySmRespBody,
  readQuerySm,
} from "../../base/smpp/index.js";
import type { Db } from "../../base/store/store.js";
import { messageTarget, queriedMessagesQuery } from "../../domain/messages/index.js";
import type { RequestAnswer } from "./client-commands.js";
import { type SmppState, smppStateOf } from "./message-state.js";
import { STATUS } from "./status.js";

/** submit_multi takes at most 255 destinations: a broadcast of more was not given over SMPP. */
export const MULTI_MAX = 255;

export interface QueryDeps {
  db: Db;
  /** Whether the account's parts answered with this id wait for the rest of their message here. */
  held: (accountId: number, id: string) => boolean;
}

/** The source_addr a query or cancel names and the sender stored, alike but for case and spaces (the rules trim it). */
export function sameSender(stored: string, asked: string): boolean {
  return stored.trim().toUpperCase() === asked.trim().toUpperCase();
}

function answer(query: QuerySm, state: SmppState, doneAt: number | null): RequestAnswer {
  // The receipts' three-digit err in query_sm_resp's one octet: a code above 255 is told as 1,
  // like a failure whose code is not a number.
  const code = Number(state.err);
  return {
    status: STATUS.ESME_ROK,
    body: querySmRespBody({
      messageId: query.messageId,
      finalDate: state.final && doneAt !== null ? absoluteTime(doneAt) : "",
      messageState: state.state,
      errorCode: code <= 255 ? code : 1,
    }),
  };
}

export async function answerQuery(deps: QueryDeps, accountId: number, body: Buffer): Promise<RequestAnswer> {
  let query: QuerySm;
  try {
    query = readQuerySm(body);
  } catch (error) {
    if (error instanceof MalformedPdu) return { status: error.status };
    throw error;
  }
  const target = messageTarget(query.messageId);
  if (!target) return { status: STATUS.ESME_RINVMSGID };
  const read = await queriedMessagesQuery(deps.db, target, MULTI_MAX + 1).execute();
  const rows = read.filter((row) => Number(row.account_id) === accountId);
  if (rows.length === 0 && "queueId" in target && deps.held(accountId, target.queueId)) {
    return answer(query, smppStateOf({ status: "queued" }), null);
  }
  if (rows.length === 0 || rows.length > MULTI_MAX) return { status: STATUS.ESME_RQUERYFAIL };
  if (query.source !== "" && !rows.every((row) => sameSender(row.sender, query.source))) {
    return { status: STATUS.ESME_RQUERYFAIL };
  }
  // A submit_multi's messages as one: on its way while any is, then the first not delivered, if any.
  const states = rows.map((row) => ({
    state: smppStateOf(row),
    doneAt: row.done_at === null ? null : Number(row.done_at),
  }));
  const told =
    states.find((s) => !s.state.final) ?? states.find((s) => s.state.state !== MESSAGE_STATE.DELIVERED) ?? states[0]!;
  const doneAt = told.state.final ? Math.max(...states.map((s) => s.doneAt ?? 0)) : null;
  return answer(query, told.state, doneAt === 0 ? null : doneAt);
}
