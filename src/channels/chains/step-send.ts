// One step of a chain sent as a send of its channel goes, through that channel's own rules and
// charge (SmsPolicy with DLT, WhatsApp's 24-hour window and credit hold, the email checks,
// VoicePolicy), under an idempotency key of the chain and step: a retry after a crash finds the
// message the first try stored instead of sending again (docs/decisions/0121).
import type { Clock } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import type { Store } from "../../base/store/store.js";
import type { PriceBook } from "../../domain/accounts/index.js";
import { inactiveAccount, type Principal } from "../../domain/auth/index.js";
import {
  type AcceptService,
  findWhatsAppMessage,
  isStoredSend,
  requestHash,
  type SendOrder,
  storedAnswer,
} from "../../domain/messages/index.js";
import { type EmailSendBody, emailOrder, familyParams } from "../email/index.js";
import type { SmsPolicy } from "../sms/index.js";
import type { VoicePolicy } from "../voice/index.js";
import type { WhatsApp, WhatsAppSendResult } from "../whatsapp/index.js";
import type { StepRow } from "./rows.js";

export interface StepSendDeps {
  store: Store;
  clock: Clock;
  acceptor: AcceptService;
  smsPolicy: SmsPolicy;
  voicePolicy: VoicePolicy;
  whatsapp: Pick<WhatsApp, "sends">;
  prices: Pick<PriceBook, "cardFor">;
  allowPrivateWebhooks: boolean;
}

/** A step's send: its message (which may itself fail later), its channel's refusal, or try again later. */
export type StepOutcome = { messageId: string } | { error: { code: string; message: string } } | { later: true };

type Step = Pick<StepRow, "chain_id" | "position" | "channel" | "recipient" | "fields">;

/** The message's link to its chain (the timeline and the message detail read it). */
export function chainMeta(step: Pick<StepRow, "chain_id" | "position">, of: number) {
  return { chain_id: step.chain_id, chain_step: step.position + 1, chain_steps: of };
}

export async function sendStep(
  deps: StepSendDeps,
  principal: Principal,
  step: Step,
  stepCount: number,
): Promise<StepOutcome> {
  const key = `chain:${step.chain_id}:${step.position}`;
  const meta = chainMeta(step, stepCount);
  const fields = JSON.parse(step.fields) as Record<string, unknown>;
  try {
    // Every channel refuses an account that is not active (WhatsApp's send relies on the caller's check).
    if (principal.status !== "active") throw inactiveAccount(principal, "send");
    if (step.channel === "whatsapp") return await sendWhatsApp(deps, principal, step, fields, key, meta);
    const hash = requestHash("chain.step", { chain: step.chain_id, step: step.position });
    const earlier = await storedMessage(deps, principal, key, hash);
    if (earlier) return { messageId: earlier };
    const order = await orderOf(deps, principal, step, fields);
    const drafts = order.drafts.map((draft) => ({ ...draft, meta: { ...draft.meta, ...meta } }));
    const outcome = await deps.acceptor.accept({ ...order, drafts, idempotency: { key, requestHash: hash } });
    const id =
      outcome.kind === "accepted" ? outcome.send.messages[0]?.id : await storedMessage(deps, principal, key, hash);
    if (!id) throw new GatewayError("internal_error", "The step's send was accepted without a message.");
    return { messageId: id };
  } catch (error) {
    if (!(error instanceof GatewayError) || error.code === "internal_error") throw error;
    if (error.code === "conflict") return { later: true };
    return { error: { code: error.code, message: error.message } };
  }
}

async function storedMessage(deps: StepSendDeps, principal: Principal, key: string, hash: string) {
  const stored = await storedAnswer(deps.store.db, principal.accountId, key, hash);
  return isStoredSend(stored) ? stored.send.messages[0]?.id : undefined;
}

/** The step as its channel's send order, decided by the channel's own rules (a refusal throws). */
async function orderOf(
  deps: StepSendDeps,
  principal: Principal,
  step: Step,
  fields: Record<string, unknown>,
): Promise<SendOrder> {
  const text = (name: string) => (typeof fields[name] === "string" ? (fields[name] as string) : undefined);
  const flag = (name: string) => (typeof fields[name] === "boolean" ? (fields[name] as boolean) : undefined);
  if (step.channel === "sms") {
    const decision = await deps.smsPolicy.decide(principal, {
      senderId: text("sender_id"),
      recipients: [step.recipient],
      message: text("message"),
      route: text("route"),
      unicode: flag("unicode"),
      flash: flag("flash"),
      dltEntityId: text("dlt_entity_id"),
      dltTemplateId: text("dlt_template_id"),
    });
    return decision.order;
  }
  if (step.channel === "voice") {
    return deps.voicePolicy.decide(principal, { from: text("from"), to: step.recipient, text: text("text") });
  }
  const params = familyParams({
    ...(fields as Omit<EmailSendBody, "to">),
    from: text("from") ?? "",
    to: step.recipient,
  });
  return emailOrder(deps, principal, params, []);
}

/**
 * WhatsApp calls its upstream while the step waits. A send the upstream refused leaves a failed
 * message (nothing charged): the step is sent, and the chain sees its message failed.
 */
async function sendWhatsApp(
  deps: StepSendDeps,
  principal: Principal,
  step: Step,
  fields: Record<string, unknown>,
  key: string,
  meta: Record<string, unknown>,
): Promise<StepOutcome> {
  const request = { ...fields, to: step.recipient } as Parameters<WhatsApp["sends"]["send"]>[1];
  let queueId: string | undefined;
  try {
    const result = await deps.whatsapp.sends.send(principal.accountId, request, key, {
      meta,
      stored: (id) => {
        queueId = id;
      },
    });
    if (queueId) return { messageId: queueId };
    // A retry: the first try's answer, stored under the key.
    const row = await findWhatsAppMessage(
      deps.store.db,
      principal.accountId,
      String((result as WhatsAppSendResult).id),
    );
    if (!row) throw new GatewayError("internal_error", "The step's earlier WhatsApp message is gone.");
    return { messageId: row.id };
  } catch (error) {
    if (queueId) return { messageId: queueId };
    throw error;
  }
}
