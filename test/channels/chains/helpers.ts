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
  /** Resolves with the chain once it is completed. */
  completed(id: string, timeoutMs?: number): Promise<ChainView>;
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
    async completed(id, timeoutMs = 10_000) {
      let view: ChainView | undefined;
      await until(async () => {
        view = (await chain(id)).body.data as ChainView;
        return view.status === "completed";
      }, timeoutMs);
      return view!;
    },
  };
}

/** The chain's messages in the account, as the messages table holds them. */
export async function chainMessages(t: TestGateway, chainId: string) {
  const rows = await t.db.store.db
    .selectFrom("messages")
    .select(["id", "channel", "recipient", "status", "meta"])
    .where("meta", "like", `%${chainId}%`)
    .orderBy("created_at")
    .execute();
  return rows;
}
