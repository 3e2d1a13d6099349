// Voice calls for tests: the three send paths, a gateway with the simulated or a fake HTTP
// call provider, accounts with voice credits and an approved caller number.
import { afterAll, beforeAll, expect } from "vitest";
import { fromMilli } from "../../../src/base/core/credits.js";
import type { Engine } from "../../../src/base/store/engine.js";
import { approveCallerIdFor } from "../../../src/channels/voice/index.js";
import { walletBalance } from "../../../src/domain/accounts/index.js";
import { cliActor } from "../../../src/domain/audit/index.js";
import { buildAccount, call, startTestGateway, type TestAccount, type TestGateway } from "../../helpers/gateway.js";
import { keyOf } from "../../helpers/sms.js";
import { FakeCallProvider } from "./fake-provider.js";

export const CALLER = "+918047110000";
export const PATHS = ["GET", "FORM", "MULTIPART", "JSON"] as const;
export type VoicePath = (typeof PATHS)[number];

/** A simulated provider fast enough for tests. */
export const FAST_VOICE_SIMULATOR = { VOICE_SIMULATOR_LATENCY_MS: "20", VOICE_SIMULATOR_FAILURE_RATE: "0" };

export interface VoiceResponse {
  status: number;
  contentType: string | null;
  text: string;
}

/** Parameters given as undefined are left out; JSON values may be numbers. */
export type VoiceParams = Record<string, string | number | undefined>;

/**
 * A call on one of the three paths: GET with a query, POST with a form (urlencoded or
 * multipart/form-data), POST with JSON.
 */
export async function placeCall(t: TestGateway, path: VoicePath, params: VoiceParams): Promise<VoiceResponse> {
  const given = Object.entries(params).filter((entry): entry is [string, string | number] => entry[1] !== undefined);
  const form = new URLSearchParams(given.map(([name, value]): [string, string] => [name, String(value)])).toString();
  const response =
    path === "GET"
      ? await fetch(`${t.url}/voicecall/v1/send?${form}`)
      : path === "FORM"
        ? await fetch(`${t.url}/voicecall/v1/post/send`, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: form,
          })
        : path === "MULTIPART"
          ? await fetch(`${t.url}/voicecall/v1/post/send`, { method: "POST", body: multipartOf(given) })
          : await fetch(`${t.url}/voicecall/v1/jpost/send`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify(Object.fromEntries(given)),
            });
  return { status: response.status, contentType: response.headers.get("content-type"), text: await response.text() };
}

function multipartOf(fields: [string, string | number][]): FormData {
  const form = new FormData();
  for (const [name, value] of fields) form.append(name, String(value));
  return form;
}

/** A call that passes every rule for `account`; `changes` override. */
export function callParams(account: TestAccount, changes: VoiceParams = {}): VoiceParams {
  return { apikey: account.apiKey, from: CALLER, to: "9876543210", text: "Your code is 4 8 2 9 1 3.", ...changes };
}

/** The answer of an accepted call: this account's broadcast id. */
export function expectBroadcastId(response: VoiceResponse, account: TestAccount, what = ""): string {
  expect(response.status, `${what} ${response.text}`).toBe(200);
  expect(response.text, what).toMatch(new RegExp(`^${account.id}_\\d{8}_\\d+$`));
  return response.text;
}

/** A funded account (voice credits) with CALLER approved. */
export async function buildVoiceAccount(
  t: TestGateway,
  options: { voice?: number; caller?: string | null } = {},
): Promise<TestAccount> {
  const account = await buildAccount(t, { credits: { sms: 100, voice: options.voice ?? 100 }, sender: null });
  const caller = options.caller === undefined ? CALLER : options.caller;
  if (caller)
    await approveCallerIdFor({ store: t.db.store, clock: t.clock, actor: cliActor() }, account.username, caller);
  return account;
}

/** The voice wallet in credits, as its ledger has it. */
export async function voiceBalance(t: TestGateway, account: TestAccount): Promise<number> {
  return fromMilli(await walletBalance(t.db.store.db, account.id, "voice"));
}

/** The only message of a voice broadcast, as GET /api/v2/sms/status/{id} shows it. */
// biome-ignore lint/suspicious/noExplicitAny: the delivery report is read field by field
export async function callStatus(t: TestGateway, account: TestAccount, id: string): Promise<any> {
  const response = await call(t, "GET", `/api/v2/sms/status/${encodeURIComponent(id)}`, { headers: keyOf(account) });
  expect(response.status, response.text).toBe(200);
  const data = response.body.data;
  return data.messages ? data.messages[0] : data;
}

/** Polls until `check` holds for the call's report; fails after `timeoutMs` with the last report. */
export async function waitForCall(
  t: TestGateway,
  account: TestAccount,
  id: string,
  // biome-ignore lint/suspicious/noExplicitAny: the delivery report is read field by field
  check: (report: any) => boolean,
  timeoutMs = 10_000,
  // biome-ignore lint/suspicious/noExplicitAny: the delivery report is read field by field
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    last = await callStatus(t, account, id);
    if (check(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`call ${id} did not reach the awaited state in time; last report: ${JSON.stringify(last)}`);
}

export interface VoiceHttpGateway {
  t: TestGateway;
  provider: FakeCallProvider;
}

/** A gateway whose calls go to a fake Twilio-compatible provider, for the whole file. */
export function useVoiceHttpGateway(engine: Engine, env: Record<string, string> = {}): () => VoiceHttpGateway {
  let current: VoiceHttpGateway | undefined;
  beforeAll(async () => {
    const provider = await new FakeCallProvider().start();
    const t = await startTestGateway(engine, {
      env: {
        VOICE_CONNECTOR: "voice-http",
        VOICE_HTTP_URL: provider.url,
        VOICE_HTTP_ACCOUNT_SID: provider.accountSid,
        VOICE_HTTP_AUTH_TOKEN: provider.authToken,
        VOICE_CALLBACK_URL: provider.publicBase,
        SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1",
        ...env,
      },
    });
    provider.gatewayUrl = t.url;
    current = { t, provider };
  });
  afterAll(async () => {
    await current?.t.gateway.stop();
    await current?.t.db.drop();
    await current?.provider.stop();
  });
  return () => {
    if (!current) throw new Error("the voice gateway is not running");
    return current;
  };
}
