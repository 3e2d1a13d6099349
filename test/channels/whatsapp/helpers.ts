// A gateway wired to a local fake Graph API (the `whatsapp-cloud` connector over real HTTP),
// and accounts connected to a business account on it. Shared by the WhatsApp test files.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll } from "vitest";
import type { Clock } from "../../../src/base/core/clock.js";
import type { Engine } from "../../../src/base/store/engine.js";
import type { GraphTemplate } from "../../../src/channels/whatsapp/graph.js";
import { updateWhatsAppSettings } from "../../../src/channels/whatsapp/settings.js";
import {
  buildAccount,
  call,
  type JsonResponse,
  startTestGateway,
  type TestAccount,
  type TestGateway,
} from "../../helpers/gateway.js";
import { type FakeGraph, startFakeGraph } from "./fake-graph.js";

export const APP_SECRET = "test-app-secret";
export const VERIFY_TOKEN = "test-verify-token";

/** The business account's templates on the fake: one of each shape, a paused, a pending and a rejected one. */
export const TEMPLATES: GraphTemplate[] = [
  {
    id: "1001",
    name: "order_shipped",
    language: "en",
    status: "APPROVED",
    category: "UTILITY",
    components: [{ type: "BODY", text: "Hi {{1}}, order {{2}} has shipped." }],
  },
  {
    id: "1002",
    name: "order_shipped",
    language: "hi",
    status: "APPROVED",
    category: "UTILITY",
    components: [{ type: "BODY", text: "नमस्ते {{1}}, ऑर्डर {{2}} भेज दिया गया है।" }],
  },
  {
    id: "1003",
    name: "hello",
    language: "en_US",
    status: "APPROVED",
    category: "MARKETING",
    components: [
      { type: "HEADER", format: "TEXT", text: "Welcome {{1}}" },
      { type: "BODY", text: "Thanks for joining us." },
    ],
  },
  {
    id: "1004",
    name: "invoice",
    language: "en",
    status: "APPROVED",
    category: "UTILITY",
    components: [
      { type: "HEADER", format: "DOCUMENT" },
      { type: "BODY", text: "Invoice {{1}} is attached." },
    ],
  },
  {
    id: "1005",
    name: "verify_code",
    language: "en",
    status: "APPROVED",
    category: "AUTHENTICATION",
    components: [
      { type: "BODY", text: "*{{1}}* is your verification code." },
      {
        type: "BUTTONS",
        buttons: [
          {
            type: "URL",
            text: "Copy code",
            url: "https://www.whatsapp.com/otp/code/?otp_type=COPY_CODE&code=otp{{1}}",
          },
        ],
      },
    ],
  },
  {
    id: "1006",
    name: "flash_sale",
    language: "en",
    status: "PAUSED",
    category: "MARKETING",
    components: [{ type: "BODY", text: "Sale: {{1}} off." }],
  },
  {
    id: "1007",
    name: "draft_notice",
    language: "en",
    status: "PENDING",
    category: "UTILITY",
    components: [{ type: "BODY", text: "Pending {{1}}." }],
  },
  {
    id: "1009",
    name: "old_promo",
    language: "en",
    status: "REJECTED",
    rejected_reason: "TAG_CONTENT_MISMATCH",
    category: "MARKETING",
    components: [{ type: "BODY", text: "Everything {{1}} off." }],
  },
  {
    id: "1008",
    name: "track_order",
    language: "en",
    status: "APPROVED",
    category: "UTILITY",
    components: [
      { type: "BODY", text: "Track order {{1}}." },
      { type: "BUTTONS", buttons: [{ type: "URL", text: "Track", url: "https://shop.example.com/track/{{1}}" }] },
    ],
  },
];

/** Turns WhatsApp on for an account, on the simulated upstream, with a business number of its own. */
export async function connectSimulatedWhatsApp(t: TestGateway, accountId: number): Promise<void> {
  await updateWhatsAppSettings(t.db.store.db, t.clock, accountId, {
    enabled: true,
    phone_number_id: String(300_000_000_000 + accountId),
    display_phone_number: "15550001234",
    waba_id: "300000000001",
    access_token: "simulated",
  });
}

export interface WhatsAppWorld {
  t: TestGateway;
  fake: FakeGraph;
  /** A funded account with WhatsApp on, connected to a fresh business account on the fake. */
  connected(options?: { credits?: number; sandbox?: boolean; testNumbers?: string[] }): Promise<Connected>;
  /** A POST of Meta's callback to the gateway's webhook, signed with the app secret. */
  callback(payload: unknown, signature?: string): Promise<{ status: number; body: string }>;
}

export interface Connected {
  account: TestAccount;
  phoneNumberId: string;
  wabaId: string;
  token: string;
  v2(method: string, path: string, json?: unknown, headers?: Record<string, string>): Promise<JsonResponse>;
  send(json: unknown, headers?: Record<string, string>): Promise<JsonResponse>;
  /** A customer's message through Meta's webhook: opens the 24-hour window. */
  customerWrites(from: string, at?: number): Promise<void>;
}

/** A business account on the fake: its phone number id, WABA id and access token. */
export interface FakeBusiness {
  phoneNumberId: string;
  wabaId: string;
  token: string;
}

/**
 * Connects account `accountId` (in `db`, changed at `clock`'s time) to a fresh business account on
 * `fake`, holding TEMPLATES; `extra` adds to its WhatsApp settings (sandbox, test numbers).
 */
export async function connectToFakeBusiness(
  fake: FakeGraph,
  db: Parameters<typeof updateWhatsAppSettings>[0],
  clock: Clock,
  accountId: number,
  extra: { sandbox?: boolean; test_numbers?: string[] } = {},
): Promise<FakeBusiness> {
  const phoneNumberId = String(100_000_000_000 + Math.floor(Math.random() * 1e11));
  const wabaId = String(200_000_000_000 + Math.floor(Math.random() * 1e11));
  const token = `EAAG${randomBytes(16).toString("hex")}`;
  fake.addPhoneNumber(phoneNumberId, wabaId, token);
  fake.setTemplates(wabaId, structuredClone(TEMPLATES));
  await updateWhatsAppSettings(db, clock, accountId, {
    enabled: true,
    phone_number_id: phoneNumberId,
    display_phone_number: "15550009999",
    waba_id: wabaId,
    access_token: token,
    ...extra,
  });
  return { phoneNumberId, wabaId, token };
}

/**
 * A template send to `to` through `v2` (the account's v2 calls), which the fake answers with
 * `wamid` when given (else a fresh one); answers the send's data.
 */
export async function templateSend(
  fake: FakeGraph,
  v2: (method: string, path: string, json?: unknown) => Promise<JsonResponse>,
  to: string,
  wamid?: string,
): Promise<{ id: number; message_id: string }> {
  if (wamid) {
    fake.scriptNext({
      status: 200,
      body: { messaging_product: "whatsapp", contacts: [{ input: to, wa_id: to }], messages: [{ id: wamid }] },
    });
  }
  const sent = await v2("POST", "/whatsapp/send", { to, template: "order_shipped", params: ["A", "B"] });
  if (sent.status !== 200) throw new Error(`the send answered ${sent.status}: ${sent.text}`);
  return sent.body.data as { id: number; message_id: string };
}

/** One gateway and one fake Graph API for the test file. */
export function useWhatsAppWorld(engine: Engine, options: { clock?: Clock; env?: Record<string, string> } = {}) {
  let world: WhatsAppWorld | undefined;
  beforeAll(async () => {
    const fake = await startFakeGraph({ pageSize: 3 });
    const t = await startTestGateway(engine, {
      ...(options.clock ? { clock: options.clock } : {}),
      env: {
        WHATSAPP_CONNECTOR: "whatsapp-cloud",
        WHATSAPP_GRAPH_URL: fake.url,
        WHATSAPP_APP_SECRET: APP_SECRET,
        WHATSAPP_VERIFY_TOKEN: VERIFY_TOKEN,
        WHATSAPP_TIMEOUT_MS: "800",
        SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1",
        ...options.env,
      },
    });
    const callback = (payload: unknown, signature?: string) =>
      fake.sendWebhook(`${t.url}/webhooks/whatsapp`, payload, {
        appSecret: APP_SECRET,
        ...(signature !== undefined ? { signature } : {}),
      });
    world = {
      t,
      fake,
      callback,
      async connected(o = {}) {
        const account = await buildAccount(t, { credits: { whatsapp: o.credits ?? 10 }, sender: null });
        const { phoneNumberId, wabaId, token } = await connectToFakeBusiness(fake, t.db.store.db, t.clock, account.id, {
          ...(o.sandbox !== undefined ? { sandbox: o.sandbox } : {}),
          ...(o.testNumbers ? { test_numbers: o.testNumbers } : {}),
        });
        const v2 = (method: string, path: string, json?: unknown, headers: Record<string, string> = {}) =>
          call(t, method, `/api/v2${path}`, {
            headers: { authorization: `Bearer ${account.apiKey}`, ...headers },
            ...(json !== undefined ? { json } : {}),
          });
        const { inboundCallback } = await import("./fake-graph.js");
        return {
          account,
          phoneNumberId,
          wabaId,
          token,
          v2,
          send: (json, headers) => v2("POST", "/whatsapp/send", json, headers),
          async customerWrites(from, at) {
            const answer = await callback(
              inboundCallback({ wabaId, phoneNumberId, from, text: "hello", at: at ?? t.clock.now().getTime() }),
            );
            if (answer.status !== 200) throw new Error(`inbound callback answered ${answer.status}: ${answer.body}`);
          },
        };
      },
    };
  });
  afterAll(async () => {
    await world?.t.gateway.stop();
    await world?.t.db.drop();
    await world?.fake.close();
  });
  return () => {
    if (!world) throw new Error("the WhatsApp test world is not running");
    return world;
  };
}

/** The account's whatsapp wallet: balance and held, in credits. */
export async function whatsappWallet(t: TestGateway, accountId: number) {
  const row = await t.db.store.db
    .selectFrom("wallets")
    .select(["balance", "held"])
    .where("account_id", "=", accountId)
    .where("wallet", "=", "whatsapp")
    .executeTakeFirstOrThrow();
  return { balance: Number(row.balance) / 1000, held: Number(row.held) / 1000 };
}

export function expectError(response: JsonResponse, status: number, code: string): void {
  if (response.status !== status || response.body?.error?.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${response.status} ${response.text}`);
  }
  if (response.body.status !== "error" || typeof response.body.message !== "string") {
    throw new Error(`expected the status envelope, got ${response.text}`);
  }
}
