// An account that can send by WhatsApp (the simulator) and SMS, and its calls to /api/v2/send.
import type { Wallet } from "../../../src/base/core/credits.js";
import { until } from "../../domain/webhooks/receiver.js";
import { buildAccount, call, type JsonResponse, type TestAccount, type TestGateway } from "../../helpers/gateway.js";
import { connectSimulatedWhatsApp } from "../whatsapp/helpers.js";

/** A step of each kind the tests send: a simulator template, and an SMS that passes every rule. */
export const WHATSAPP_STEP = { channel: "whatsapp", template: "hello_world" };
export const SMS_STEP = { channel: "sms", sender_id: "SWBRD", message: "Your order has shipped." };

export interface ChainAccount {
  account: TestAccount;
  send(json: unknown): Promise<JsonResponse>;
  chain(id: string): Promise<JsonResponse>;
  v2(method: string, path: string, json?: unknown): Promise<JsonResponse>;
  /** Resolves with the chain once it is completed (the test's own timeout is the only limit). */
  completed(id: string): Promise<ChainView>;
}

export interface ChainView {
  chain_id: string;
  status: string;
  outcome: string | null;
  steps: Array<{ channel: string; to: string; message_id: string | null; status: string; error: unknown }>;
}

export async function chainAccount(
  t: TestGateway,
  credits: Partial<Record<Wallet, number>> = { sms: 100, whatsapp: 10 },
): Promise<ChainAccount> {
  const account = await buildAccount(t, { credits });
  await connectSimulatedWhatsApp(t, account.id);
  const v2 = (method: string, path: string, json?: unknown) =>
    call(t, method, `/api/v2${path}`, {
      headers: { authorization: `Bearer ${account.apiKey}` },
      ...(json !== undefined ? { json } : {}),
    });
  const chain = (id: string) => v2("GET", `/send/${id}`);
  return {
    account,
    v2,
    send: (json) => v2("POST", "/send", json),
    chain,
    async completed(id) {
      let view: ChainView | undefined;
      // A loaded machine may take longer than until()'s usual 10 s; the test's timeout says when to stop.
      await until(async () => {
        view = (await chain(id)).body.data as ChainView;
        return view.status === "completed";
      }, Number.POSITIVE_INFINITY);
      return view!;
    },
  };
}

/**
 * The chain's messages in the account, as the messages table holds them, in the order of their
 * steps (on a manual clock, two steps' messages may be created at the same time).
 */
export async function chainMessages(t: TestGateway, chainId: string) {
  const rows = await t.db.store.db
    .selectFrom("messages")
    .innerJoin("chain_steps", "chain_steps.message_id", "messages.id")
    .select(["messages.id", "messages.channel", "messages.recipient", "messages.status", "messages.meta"])
    .where("chain_steps.chain_id", "=", chainId)
    .orderBy("chain_steps.position")
    .execute();
  return rows;
}
