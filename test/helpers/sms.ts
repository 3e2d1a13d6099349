// v2 SMS calls for tests: send, read the balance, and poll a message's status until it
// reaches the state a test waits for (with a deadline, so a stuck pipeline fails fast).
import { expect } from "vitest";
import { call, type JsonResponse, type TestAccount, type TestGateway } from "./gateway.js";

/** Carrier outcomes that let the test pipeline run in well under a second per message. */
export const FAST_SIMULATOR = { SIMULATOR_LATENCY_MS: "50", SIMULATOR_FAILURE_RATE: "0" };

export const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,3})?Z$/;

export function keyOf(account: TestAccount): Record<string, string> {
  return { "x-api-key": account.apiKey };
}

export function sendSms(
  t: TestGateway,
  account: TestAccount,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<JsonResponse> {
  return call(t, "POST", "/api/v2/sms/send", { headers: { ...keyOf(account), ...headers }, json: body });
}

export async function balanceOf(t: TestGateway, account: TestAccount): Promise<number> {
  const response = await call(t, "GET", "/api/v2/balance", { headers: keyOf(account) });
  expect(response.status).toBe(200);
  return response.body.data.balance;
}

export function statusOf(t: TestGateway, account: TestAccount, id: string): Promise<JsonResponse> {
  return call(t, "GET", `/api/v2/sms/status/${encodeURIComponent(id)}`, { headers: keyOf(account) });
}

const FINAL = ["delivered", "failed", "cancelled"];

/** Polls the status call until the message is final (or `until` holds); fails after `timeoutMs`. */
export async function waitForStatus(
  t: TestGateway,
  account: TestAccount,
  id: string,
  options: { until?: (status: string) => boolean; timeoutMs?: number } = {},
  // biome-ignore lint/suspicious/noExplicitAny: the delivery report is read field by field by the caller
): Promise<any> {
  const until = options.until ?? ((status: string) => FINAL.includes(status));
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  let last: JsonResponse | undefined;
  while (Date.now() < deadline) {
    last = await statusOf(t, account, id);
    expect(last.status).toBe(200);
    if (until(last.body.data.status)) return last.body.data;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`message ${id} did not reach the awaited status in time; last answer: ${last?.text}`);
}
