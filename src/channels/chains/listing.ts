// Chains as they are shown: one with its steps and their messages' statuses (the v2 answer, and
// `switchboard chains show`), and every account's chains newest first for the operator's
// `switchboard chains list`. Reads only: the CLI loads this without the channels' send paths.
import { isoUtc } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import { isChainId } from "../../base/core/ids.js";
import { publicStatus } from "../../base/core/message-status.js";
import type { ChainStatus, MessageStatus } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";
import { accountUsernames, requireAccount } from "../../domain/accounts/index.js";
import { messageOutcomes } from "../../domain/messages/index.js";
import { type ChainRow, chainById, type StepRow, stepsOf } from "./rows.js";
import type { ChainChannel } from "./step-fields.js";

/** Why a step's message failed, as its status answer says it. */
type MessageError = { code: string; message: string; reason?: string; carrier_code?: string };

/**
 * A chain's steps, each with the status of its message (undefined before it is sent, or once
 * removed) and, once it failed, its error (a carrier's UNDELIV is on the message, not the step).
 */
export async function stepsWithStatus(db: Db, chainId: string) {
  const steps = await stepsOf(db, chainId);
  const outcomes = await messageOutcomes(
    db,
    steps.flatMap((s) => (s.message_id ? [s.message_id] : [])),
  );
  return steps.map((s) => {
    const outcome = s.message_id ? outcomes.get(s.message_id) : undefined;
    return { ...s, messageStatus: outcome?.status, messageError: outcome?.error ?? null };
  });
}

/** The chain as the API answers it (the SendChain schema). */
export function describeChain(
  chain: ChainRow,
  steps: Array<StepRow & { messageStatus: MessageStatus | undefined; messageError?: MessageError | null }>,
) {
  const time = (ms: number | null) => (ms === null ? null : isoUtc(new Date(Number(ms))));
  return {
    chain_id: chain.id,
    recipient: chain.recipient,
    status: chain.status,
    outcome: chain.outcome,
    created_at: isoUtc(new Date(Number(chain.created_at))),
    completed_at: time(chain.completed_at),
    steps: steps.map((step) => ({
      channel: step.channel as ChainChannel,
      to: step.recipient,
      message_id: step.message_id,
      status: step.messageStatus ? publicStatus(step.messageStatus) : step.status,
      after:
        step.after_on === null
          ? null
          : {
              on: step.after_on,
              ...(step.within_ms === null ? {} : { within_seconds: Math.round(Number(step.within_ms) / 1000) }),
            },
      decides_at: step.status === "waiting" ? time(step.due_at) : null,
      // The step's own refusal, else its message's failure.
      error:
        step.error_code === null
          ? (step.messageError ?? null)
          : { code: step.error_code, message: step.error_message ?? "" },
    })),
  };
}

/** One chain of any account, as the operator sees it (the v2 answer and its account). */
export async function operatorChain(db: Db, id: string) {
  const chain = isChainId(id) ? await chainById(db, id) : undefined;
  if (!chain) throw new GatewayError("not_found", `No chain ${id.slice(0, 40)}.`);
  const names = await accountUsernames(db, [Number(chain.account_id)]);
  return {
    account: names.get(Number(chain.account_id)) ?? `account ${chain.account_id}`,
    ...describeChain(chain, await stepsWithStatus(db, chain.id)),
  };
}

export interface ChainFilter {
  account?: string | undefined;
  status?: ChainStatus | undefined;
  limit: number;
}

/** Every account's chains (or one's), newest first, without their steps. */
export async function operatorChains(db: Db, filter: ChainFilter) {
  const accountId = filter.account === undefined ? undefined : (await requireAccount(db, filter.account)).id;
  let query = db.selectFrom("send_chains").selectAll().orderBy("created_at", "desc").orderBy("id", "desc");
  if (accountId !== undefined) query = query.where("account_id", "=", accountId);
  if (filter.status !== undefined) query = query.where("status", "=", filter.status);
  const rows = await query.limit(filter.limit).execute();
  const names = await accountUsernames(db, [...new Set(rows.map((row) => Number(row.account_id)))]);
  return rows.map((row) => ({
    chain_id: row.id,
    account: names.get(Number(row.account_id)) ?? `account ${row.account_id}`,
    recipient: row.recipient,
    status: row.status,
    outcome: row.outcome,
    steps: Number(row.step_count),
    created_at: isoUtc(new Date(Number(row.created_at))),
    completed_at: row.completed_at === null ? null : isoUtc(new Date(Number(row.completed_at))),
  }));
}
