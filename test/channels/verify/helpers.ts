// The Verify API's tests share these: a gateway on a ManualClock whose simulator captures what it
// hands the "carrier", accounts with verify settings, and reading a code out of the capture.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "vitest";
import type { ManualClock } from "../../../src/base/core/clock.js";
import { changeVerifySettings } from "../../../src/channels/verify/settings.js";
import { approveCallerIdFor } from "../../../src/channels/voice/index.js";
import { cliActor } from "../../../src/domain/audit/index.js";
import { until } from "../../domain/webhooks/receiver.js";
import { buildAccount, call, type JsonResponse, type TestAccount, type TestGateway } from "../../helpers/gateway.js";
import { FAST_SIMULATOR, keyOf } from "../../helpers/sms.js";

export const CALLER = "+918047110000";

export function verifyEnv(): { env: Record<string, string>; captureFile: string } {
  const captureFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "verify-")), "capture.jsonl");
  return {
    captureFile,
    env: { ...FAST_SIMULATOR, SIMULATOR_CAPTURE_FILE: captureFile, SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1" },
  };
}

let numbers = 0;
/**
 * A fresh Indian mobile number per call, so the per-recipient limit never joins two tests. Its
 * last four digits are 1000 to 9999: the simulator rejects, throttles or fails the numbers ending
 * 0001 to 0006 (simulator.ts), and the second number of a file once ended 0002 whenever the
 * clock's milliseconds ended 00 — its code was never sent, a failure one run in a hundred. It
 * starts 99: the pumping tests block prefixes 9876…, and a "real user" whose number the clock
 * had started 9876 (0.1 % of the milliseconds) was refused with them.
 */
export function freshNumber(): string {
  numbers += 1;
  return `99${String(Date.now() % 10_000).padStart(4, "0")}${1000 + (numbers % 9000)}`;
}

export async function verifyAccount(
  t: TestGateway,
  options: { channels?: string[]; caller?: boolean; credits?: number; dltScrubbing?: boolean } = {},
): Promise<TestAccount> {
  const account = await buildAccount(t, {
    credits: { sms: options.credits ?? 1000, voice: 1000 },
    dltScrubbing: options.dltScrubbing ?? false,
  });
  if (options.caller)
    await approveCallerIdFor({ store: t.db.store, clock: t.clock, actor: cliActor() }, account.username, CALLER);
  await changeVerifySettings(t.db.store.db, t.clock, account.id, {
    verify_sender_id: "SWBRD",
    ...(options.caller ? { verify_caller_id: CALLER } : {}),
    ...(options.channels ? { verify_channels: options.channels } : {}),
  });
  return account;
}

export function verifyCall(t: TestGateway, account: TestAccount, method: string, p: string, json?: unknown) {
  return call(t, method, `/api/v2/verify${p}`, {
    headers: keyOf(account),
    ...(json !== undefined ? { json } : {}),
  });
}

export async function start(
  t: TestGateway,
  account: TestAccount,
  body: Record<string, unknown>,
): Promise<JsonResponse> {
  const response = await verifyCall(t, account, "POST", "", body);
  expect(response.status, response.text).toBe(200);
  return response;
}

/** The clear code the simulator was handed for `messageId` (waits for the dispatcher). */
export async function capturedCode(captureFile: string, messageId: string): Promise<string> {
  let body: string | undefined;
  await until(() => {
    if (!fs.existsSync(captureFile)) return false;
    for (const line of fs.readFileSync(captureFile, "utf8").split("\n")) {
      if (line.includes(messageId)) body = (JSON.parse(line) as { body: string }).body;
    }
    return body !== undefined;
  });
  const code = /\d{4,10}/.exec(body!)?.[0];
  expect(code, body).toBeDefined();
  return code!;
}

export function advance(t: TestGateway, ms: number): void {
  (t.clock as ManualClock).advance(ms);
}
