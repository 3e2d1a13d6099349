// A claimed batch handed to the connectors of each message's plan (router.ts): grouped by
// connector and submitted at once; a message refused retryably goes to its plan's next connector
// within the batch, and each message's last result is filed (submit-outcomes.ts) with, when
// submitted, its cost by the connector's cost card and why its route chose the connector.
import type { Runtime } from "../../base/runtime/runtime.js";
import type { MessageRow } from "../../base/store/schema.js";
import { type Connector, outcomeOf, type SubmitResult } from "./connector.js";
import type { Router } from "./router.js";
import { hold, type Outcomes, settle } from "./submit-outcomes.js";

/** Where the dispatcher gets its router (the carrier registry swaps it when routes change) and reports results. */
export interface Routing {
  router(): Router;
  /** Every connector's results, for its health. */
  observe?(connector: string, results: readonly SubmitResult[]): void;
}

/** What a batch's submits need from the dispatcher. */
export interface BatchSubmit {
  routing: Routing;
  metrics: Runtime["metrics"];
  /** Submit attempts before a retryable failure becomes final. */
  maxAttempts: number;
  /** How long a message may be held for a connector of its route to be up (default 48 h). */
  holdForMs: number | undefined;
  now: () => number;
}

/** Hands each claimed message to the connectors of its plan, failing over within the batch, and files its outcome. */
export async function submitAll(claimed: MessageRow[], batch: BatchSubmit): Promise<Outcomes> {
  const { now, metrics, maxAttempts, holdForMs } = batch;
  const outcomes: Outcomes = { failures: [], retries: [], submitted: [], takenBy: new Map() };
  const router = batch.routing.router();
  const plans = new Map<string, Connector[]>();
  const notes = new Map<string, (connector: string) => string>();
  let pending: MessageRow[] = [];
  for (const message of claimed) {
    const plan = router.plan(message);
    if (plan.ok) {
      plans.set(message.id, plan.connectors);
      if (plan.note) notes.set(message.id, plan.note);
      pending.push(message);
    } else if (plan.code === "connectors_down") {
      hold(message, plan, outcomes, now(), holdForMs);
    } else {
      // no_route fails now.
      settle(message, { ...plan, ok: false }, "", outcomes, now, maxAttempts);
    }
  }
  while (pending.length > 0) {
    const groups = new Map<Connector, MessageRow[]>();
    for (const message of pending) {
      const connector = plans.get(message.id)![0]!;
      const list = groups.get(connector) ?? [];
      list.push(message);
      groups.set(connector, list);
    }
    const again: MessageRow[] = [];
    await Promise.all(
      [...groups].map(async ([connector, messages]) => {
        const results = await submitTo(connector, messages, metrics);
        batch.routing.observe?.(connector.name, results);
        messages.forEach((message, index) => {
          const result = results[index]!;
          const plan = plans.get(message.id)!;
          if (outcomeOf(result) === "retryable" && plan.length > 1) {
            plan.shift();
            metrics.connectorFailovers.inc({ from: connector.name, to: plan[0]!.name });
            again.push(message);
            return;
          }
          if (!result.ok) {
            settle(message, result, connector.name, outcomes, now, maxAttempts);
            return;
          }
          const cost = router.unitCost(connector.name, message);
          settle(message, result, connector.name, outcomes, now, maxAttempts, {
            cost: cost ? cost.price * message.segments : null,
            costPrefix: cost?.prefix ?? null,
            note: notes.get(message.id)?.(connector.name) ?? null,
          });
          outcomes.takenBy.set(message.id, connector);
        });
      }),
    );
    pending = again;
  }
  return outcomes;
}

/** The connector's results for `messages`; a connector that throws has failed them all, retryably. */
async function submitTo(
  connector: Connector,
  messages: MessageRow[],
  metrics: Runtime["metrics"],
): Promise<SubmitResult[]> {
  let results: SubmitResult[];
  const started = performance.now();
  try {
    results = await connector.submit(messages);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    results = messages.map(() => ({ ok: false, retryable: true, code: "connector_error", message: reason }));
  }
  metrics.connectorSubmitSeconds.observe({ connector: connector.name }, (performance.now() - started) / 1000);
  return messages.map(
    (_message, index) =>
      results[index] ?? { ok: false, retryable: true, code: "no_result", message: "Connector gave no result." },
  );
}
