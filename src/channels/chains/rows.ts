// The send_chains and chain_steps tables: each change of a step or chain one conditional
// statement, so that two workers (PostgreSQL) never both send a step or complete a chain.

import type { ChainOutcome, ChainStepStatus, ChainStepsTable, SendChainsTable } from "../../base/store/schema.js";
import type { Db, Store } from "../../base/store/store.js";
import type { StepPlan } from "./step-fields.js";

export type ChainRow = SendChainsTable;
export type StepRow = ChainStepsTable;

/** Stores a chain with its first step claimed for sending (lease `leaseUntil`), the others pending. */
export async function insertChain(
  db: Db,
  chain: { id: string; accountId: number; recipient: string; now: number; leaseUntil: number },
  steps: readonly StepPlan[],
): Promise<void> {
  await db
    .insertInto("send_chains")
    .values({
      id: chain.id,
      account_id: chain.accountId,
      recipient: chain.recipient,
      status: "running",
      outcome: null,
      step_count: steps.length,
      created_at: chain.now,
      completed_at: null,
    })
    .execute();
  await db
    .insertInto("chain_steps")
    .values(
      steps.map((step, position) => ({
        chain_id: chain.id,
        position,
        channel: step.channel,
        recipient: step.recipient,
        fields: JSON.stringify(step.fields),
        after_on: step.after?.on ?? null,
        within_ms: step.after?.withinMs ?? null,
        status: (position === 0 ? "sending" : "pending") satisfies ChainStepStatus,
        due_at: position === 0 ? chain.leaseUntil : null,
        message_id: null,
        error_code: null,
        error_message: null,
        sent_at: null,
        decided_at: null,
      })),
    )
    .execute();
}

export async function chainOf(db: Db, accountId: number, id: string): Promise<ChainRow | undefined> {
  return db
    .selectFrom("send_chains")
    .selectAll()
    .where("id", "=", id)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
}

export async function chainById(db: Db, id: string): Promise<ChainRow | undefined> {
  return db.selectFrom("send_chains").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function stepsOf(db: Db, chainId: string): Promise<StepRow[]> {
  return db.selectFrom("chain_steps").selectAll().where("chain_id", "=", chainId).orderBy("position").execute();
}

/** A step the worker looks at, with how the step before it stands. */
export interface OpenStep extends Pick<StepRow, "chain_id" | "position" | "status" | "after_on" | "due_at"> {
  previous_status: StepRow["status"] | null;
  previous_message_id: string | null;
}

// The worker's pass runs these two every second, mostly to find nothing: prepared statements
// (one SQL text for both engines), not queries built and compiled at each pass (issue 43).
const OPEN_STEPS = (paged: boolean) => `
  select s.chain_id, s.position, s.status, s.after_on, s.due_at,
         p.status as previous_status, p.message_id as previous_message_id
    from chain_steps s
    left join chain_steps p on p.chain_id = s.chain_id and p.position = s.position - 1
   where (s.status = 'waiting' or (s.status = 'sending' and s.due_at < ?))
     ${paged ? "and (s.chain_id > ? or (s.chain_id = ? and s.position > ?))" : ""}
   order by s.chain_id, s.position
   limit ?`;
const OPEN_STEPS_FIRST = OPEN_STEPS(false);
const OPEN_STEPS_AFTER = OPEN_STEPS(true);

const DECIDED_RUNNING_CHAINS = `
  select * from send_chains
   where status = 'running'
     and not exists (select 1 from chain_steps
                      where chain_steps.chain_id = send_chains.id
                        and chain_steps.status in ('pending', 'waiting', 'sending'))
   order by id
   limit ?`;

/**
 * Steps the worker has to look at now, a page in (chain, position) order: waiting ones (their
 * condition may be met, or their deadline passed) and sending ones whose claim's lease ran out
 * (their process stopped mid-send).
 */
export async function waitingOrStaleSteps(
  store: Pick<Store, "db" | "statement">,
  now: number,
  limit: number,
  after?: Pick<StepRow, "chain_id" | "position">,
): Promise<OpenStep[]> {
  return after
    ? store.statement(OPEN_STEPS_AFTER).all(store.db, [now, after.chain_id, after.chain_id, after.position, limit])
    : store.statement(OPEN_STEPS_FIRST).all(store.db, [now, limit]);
}

/** Running chains none of whose steps is still to be decided: each may be complete once its messages are final. */
export async function decidedRunningChains(store: Pick<Store, "db" | "statement">, limit: number): Promise<ChainRow[]> {
  return store.statement(DECIDED_RUNNING_CHAINS).all(store.db, [limit]);
}

/**
 * Claims a step for sending until `leaseUntil`: a waiting one, or a sending one whose lease ran
 * out (`expired`). False when another worker has it.
 */
export async function claimStep(
  db: Db,
  step: Pick<StepRow, "chain_id" | "position" | "status">,
  now: number,
  leaseUntil: number,
): Promise<boolean> {
  let query = db
    .updateTable("chain_steps")
    .set({ status: "sending", due_at: leaseUntil })
    .where("chain_id", "=", step.chain_id)
    .where("position", "=", step.position);
  query =
    step.status === "sending"
      ? query.where("status", "=", "sending").where("due_at", "<", now)
      : query.where("status", "=", "waiting");
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * A claimed step's send ended: `sent` with its message, or `refused` by its channel. The next
 * step, if any, starts waiting (its deadline from now).
 */
/**
 * Records a claimed step's send and opens the step after it: "waiting" for its condition, or, when
 * this step was refused (a refused step is failed: the next goes at once, conditions.ts), claimed
 * for the caller until `leaseUntil` ("next_claimed"), so that the request or worker that saw the
 * refusal sends it, never a worker's pass in between (a chain's start answers with that step's
 * message). False when the step was no longer this caller's.
 */
export async function recordSend(
  db: Db,
  step: Pick<StepRow, "chain_id" | "position">,
  result: { messageId: string } | { error: { code: string; message: string } },
  now: number,
  leaseUntil: number,
): Promise<false | "recorded" | "next_claimed"> {
  const sent = "messageId" in result;
  const done = await db
    .updateTable("chain_steps")
    .set({
      status: sent ? "sent" : "refused",
      message_id: sent ? result.messageId : null,
      error_code: sent ? null : result.error.code,
      error_message: sent ? null : result.error.message,
      sent_at: sent ? now : null,
      decided_at: now,
      due_at: null,
    })
    .where("chain_id", "=", step.chain_id)
    .where("position", "=", step.position)
    .where("status", "=", "sending")
    .executeTakeFirst();
  if (Number(done.numUpdatedRows) !== 1) return false;
  const next = await db
    .selectFrom("chain_steps")
    .select(["within_ms"])
    .where("chain_id", "=", step.chain_id)
    .where("position", "=", step.position + 1)
    .executeTakeFirst();
  if (!next) return "recorded";
  const opened = sent
    ? { status: "waiting" as const, due_at: next.within_ms === null ? null : now + Number(next.within_ms) }
    : { status: "sending" as const, due_at: leaseUntil };
  const result2 = await db
    .updateTable("chain_steps")
    .set(opened)
    .where("chain_id", "=", step.chain_id)
    .where("position", "=", step.position + 1)
    .where("status", "=", "pending")
    .executeTakeFirst();
  return !sent && Number(result2.numUpdatedRows) === 1 ? "next_claimed" : "recorded";
}

/** Extends a claimed step's lease (its channel asked to try again later). */
export async function extendLease(db: Db, step: Pick<StepRow, "chain_id" | "position">, leaseUntil: number) {
  await db
    .updateTable("chain_steps")
    .set({ due_at: leaseUntil })
    .where("chain_id", "=", step.chain_id)
    .where("position", "=", step.position)
    .where("status", "=", "sending")
    .execute();
}

/** A waiting step whose condition was not met: it and every later step are skipped. False when it was no longer waiting. */
export async function skipFrom(db: Db, step: Pick<StepRow, "chain_id" | "position">, now: number): Promise<boolean> {
  const result = await db
    .updateTable("chain_steps")
    .set({ status: "skipped", decided_at: now, due_at: null })
    .where("chain_id", "=", step.chain_id)
    .where("position", "=", step.position)
    .where("status", "=", "waiting")
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return false;
  await db
    .updateTable("chain_steps")
    .set({ status: "skipped", decided_at: now })
    .where("chain_id", "=", step.chain_id)
    .where("position", ">", step.position)
    .where("status", "=", "pending")
    .execute();
  return true;
}

/** Completes a running chain; false when another worker did first. */
export async function completeChain(db: Db, id: string, outcome: ChainOutcome, now: number): Promise<boolean> {
  const result = await db
    .updateTable("send_chains")
    .set({ status: "completed", outcome, completed_at: now })
    .where("id", "=", id)
    .where("status", "=", "running")
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
