// Reading an account's received messages: all of them, or those a keyword matched.

import { pagedRows } from "../../base/store/paging.js";
import type { Db } from "../../base/store/store.js";

export interface InboundEntry {
  id: number;
  from: string;
  to: string;
  message: string;
  received_at: string;
  keyword_id: number | null;
  keyword: string | null;
  /** The queue id of the keyword reply sent back; null when none was sent. */
  reply_message_id: string | null;
}

/** Newest first; `keywordId` keeps the messages that keyword matched. */
export async function listInbound(
  db: Db,
  accountId: number,
  options: { keywordId?: number; page: number; perPage: number },
  time: (ms: number) => string,
): Promise<{ entries: InboundEntry[]; total: number }> {
  let query = db.selectFrom("inbound_messages").where("inbound_messages.account_id", "=", accountId);
  if (options.keywordId !== undefined) query = query.where("inbound_messages.keyword_id", "=", options.keywordId);
  const { rows, total } = await pagedRows(
    query,
    (q) =>
      q
        .leftJoin("keywords", "keywords.id", "inbound_messages.keyword_id")
        .select([
          "inbound_messages.id",
          "inbound_messages.number",
          "inbound_messages.sender",
          "inbound_messages.body",
          "inbound_messages.received_at",
          "inbound_messages.keyword_id",
          "inbound_messages.reply_message_id",
          "keywords.key",
        ])
        .orderBy("inbound_messages.received_at", "desc")
        .orderBy("inbound_messages.id", "desc"),
    options,
  );
  return {
    entries: rows.map((row) => ({
      id: row.id,
      from: row.sender,
      to: row.number,
      message: row.body,
      received_at: time(row.received_at),
      keyword_id: row.keyword_id,
      keyword: row.key,
      reply_message_id: row.reply_message_id,
    })),
    total,
  };
}
