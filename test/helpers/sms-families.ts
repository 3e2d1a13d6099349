// One SMS send on each HTTP family (v2 send, v2 bulk, v2 schedule, legacy, XML), answered in one
// shape, so a table of SMS rules is walked on every family with the same input: accepted or
// not, the code in the family's dialect, the explanation, and v2's error object.
import { expect } from "vitest";
import { call, type TestAccount, type TestGateway } from "./gateway.js";
import { credentials, legacy, pushsms, xmlSend } from "./legacy.js";
import { keyOf } from "./sms.js";

export type Family = "v2" | "bulk" | "schedule" | "legacy" | "xml";
export const FAMILIES: Family[] = ["v2", "bulk", "schedule", "legacy", "xml"];

export interface FamilySend {
  route: "T" | "P";
  message: string;
  /** Default: PROMOTIONAL on P, SWBRD on T. */
  sender?: string;
}

export interface FamilyAnswer {
  accepted: boolean;
  /** v2: error.code; legacy and XML: the negative code. */
  code?: string;
  /** v2: the message; legacy and XML: X-Error-Message. */
  message?: string;
  status?: number;
  /** v2's error object. */
  error?: Record<string, unknown>;
}

/** An hour from now as `YYYY-MM-DD HH:MM:SS` in Asia/Kolkata (the test accounts' zone). */
export function anHourLater(): string {
  const ist = new Date(Date.now() + 3_600_000 + 5.5 * 3_600_000);
  return ist.toISOString().slice(0, 19).replace("T", " ");
}

export async function sendOn(
  t: TestGateway,
  account: TestAccount,
  family: Family,
  send: FamilySend,
): Promise<FamilyAnswer> {
  const sender = send.sender ?? (send.route === "P" ? "PROMOTIONAL" : "SWBRD");
  const route = send.route === "P" ? "promotional" : "transactional";
  const { message } = send;
  if (family === "v2" || family === "bulk" || family === "schedule") {
    const [path, json] =
      family === "v2"
        ? ["/api/v2/sms/send", { sender_id: sender, route, recipient: "9876543210", message }]
        : family === "bulk"
          ? ["/api/v2/sms/bulk", { sender_id: sender, route, recipients: ["9876543210", "9876543211"], message }]
          : [
              "/api/v2/sms/schedule",
              { sender_id: sender, route, recipient: "9876543210", message, scheduled_at: anHourLater() },
            ];
    const response = await call(t, "POST", path, { headers: keyOf(account), json });
    if (response.status === 200 || response.status === 201 || response.status === 202) return { accepted: true };
    return {
      accepted: false,
      status: response.status,
      code: response.body.error?.code,
      message: response.body.message ?? response.body.error?.message,
      error: response.body.error,
    };
  }
  const answer =
    family === "legacy"
      ? await legacy(t, "/httpapi/send", {
          ...credentials(account),
          sender_id: sender,
          route: send.route,
          phonenumber: "9876543210",
          message,
        })
      : await xmlSend(
          t,
          pushsms(credentials(account), { sender, route: send.route, messages: [{ pno: "9876543210", msg: message }] }),
        );
  expect(answer.status).toBe(200);
  if (/^\d+_\d{8}_\d+$/.test(answer.text)) return { accepted: true };
  return { accepted: false, code: answer.text, message: answer.headers.get("x-error-message") ?? "" };
}

/** The number of debit entries of the account: a refused send adds none. */
export async function countDebits(t: TestGateway, account: TestAccount): Promise<number> {
  const rows = await t.db.store.db
    .selectFrom("ledger_entries")
    .select("id")
    .where("account_id", "=", account.id)
    .where("kind", "=", "debit")
    .execute();
  return rows.length;
}
