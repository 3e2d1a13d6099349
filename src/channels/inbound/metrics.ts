// Counters of inbound SMS, on the gateway's registry (one per gateway, created on first use).
import { Counter, type Registry } from "prom-client";

export interface InboundMetrics {
  /** outcome: stored, duplicate, unknown_number, invalid, error. */
  inbound: Counter<"outcome">;
  /** outcome: sent, or the reason the reply was skipped (insufficient_credits, account_inactive, …). */
  replies: Counter<"outcome">;
}

const byRegistry = new WeakMap<Registry, InboundMetrics>();

export function inboundMetrics(registry: Registry): InboundMetrics {
  let metrics = byRegistry.get(registry);
  if (!metrics) {
    metrics = {
      inbound: new Counter({
        name: "switchboard_inbound_messages_total",
        help: "Inbound SMS received, by outcome (stored, duplicate, unknown_number, invalid, error)",
        labelNames: ["outcome"],
        registers: [registry],
      }),
      replies: new Counter({
        name: "switchboard_keyword_replies_total",
        help: "Static keyword replies: sent, or the reason they were skipped",
        labelNames: ["outcome"],
        registers: [registry],
      }),
    };
    byRegistry.set(registry, metrics);
  }
  return metrics;
}
