// The README's v2 requests, written with the types openapi-typescript generates from
// GET /api/v2/openapi.json (v2.d.ts, written here by test/app/openapi.test.ts, not committed) and
// openapi-fetch. The test type-checks this file with tsc and runs it against a gateway, so a
// document that a generator misreads, or that differs from the answers, fails one or the other.
import createClient from "openapi-fetch";
import type { components, paths } from "./v2.js";

export type V2Client = ReturnType<typeof v2Client>;
type DeliveryReport = components["schemas"]["DeliveryReport"];
type BroadcastReport = components["schemas"]["BroadcastReport"];

export function v2Client(baseUrl: string, key: string) {
  return createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${key}` } });
}

const OTP = {
  sender_id: "SWBRD",
  recipient: "9876543210",
  message: "Your OTP is 482913. Do not share it with anyone.",
};

/** "First steps": balance, sender IDs, a send, its status, an idempotent send. */
export async function firstSteps(client: V2Client, key: string) {
  const balance = await client.GET("/api/v2/balance");
  const senders = await client.GET("/api/v2/sender-ids", { headers: { Authorization: null, "X-API-Key": key } });
  const sent = await client.POST("/api/v2/sms/send", { body: OTP });
  const messageId: string = sent.data?.data.message_id ?? "";
  const status = await client.GET("/api/v2/sms/status/{id}", { params: { path: { id: messageId } } });
  const report = status.data?.data;
  const idempotent = {
    headers: { "Idempotency-Key": "order-1001" },
    body: { ...OTP, message: "Your OTP is 771204. Do not share it with anyone." },
  };
  const first = await client.POST("/api/v2/sms/send", idempotent);
  const again = await client.POST("/api/v2/sms/send", idempotent);
  return {
    balance: balance.data?.data.balance,
    senders: senders.data?.data.map((sender) => `${sender.sender_id}:${sender.status}`),
    sent: sent.data?.data,
    report: report && "message_id" in report ? report : undefined,
    repeatedId: [first.data?.data.message_id, again.data?.data.message_id],
  };
}

/** A bulk job and its summary; a scheduled send and its cancellation. */
export async function bulkAndSchedule(client: V2Client, scheduledAt: string) {
  const bulk = await client.POST("/api/v2/sms/bulk", {
    body: {
      sender_id: "PROMOTIONAL",
      route: "promotional",
      dlt_entity_id: "1101160000000000001",
      message: "Diwali sale: 20% off everything until Sunday.",
      recipients: ["9876543210", "9812345678", "12345"],
    },
  });
  const jobId = bulk.data?.data.job_id ?? 0;
  const job = await client.GET("/api/v2/bulk-jobs/{id}", { params: { path: { id: String(jobId) } } });
  const scheduled = await client.POST("/api/v2/sms/schedule", { body: { ...OTP, scheduled_at: scheduledAt } });
  const id = scheduled.data?.data.message_id ?? "";
  const cancelled = await client.DELETE("/api/v2/sms/schedule/{id}", { params: { path: { id } } });
  return {
    bulk: bulk.data?.data,
    refusedCodes: bulk.data?.data.rejected.map((rejection) => rejection.error.code),
    summary: job.data?.data.delivery_summary,
    scheduled: scheduled.data?.data,
    cancelled: cancelled.data?.data,
  };
}

/** Webhook URL, then WhatsApp: a template, its status, and free text refused outside the window. */
export async function webhooksAndWhatsApp(client: V2Client) {
  const webhooks = await client.PUT("/api/v2/webhooks", { body: { delivery_report: "https://hooks.example.com/sms" } });
  const template = await client.POST("/api/v2/whatsapp/send", {
    body: { to: "919876543210", template: "otp_code", params: ["482913"] },
  });
  const id = String(template.data?.data.id ?? "");
  const status = await client.GET("/api/v2/whatsapp/status/{id}", { params: { path: { id } } });
  const text = await client.POST("/api/v2/whatsapp/send", { body: { to: "919876543210", message: "Hello" } });
  return {
    deliveryReportUrl: webhooks.data?.data.delivery_report,
    secretSet: typeof webhooks.data?.data.secret === "string",
    whatsApp: template.data?.data,
    whatsAppStatus: status.data?.data.status,
    textRefusal: { status: text.response.status, code: text.error?.error.code },
  };
}

/** The status of a broadcast (the voice call of the README) and of an email send. */
export async function broadcastAndEmailStatus(client: V2Client, callBroadcast: string, emailBroadcast: string) {
  const call = await client.GET("/api/v2/sms/status/{id}", { params: { path: { id: callBroadcast } } });
  const broadcast: DeliveryReport | BroadcastReport | undefined = call.data?.data;
  const email = await client.GET("/api/v2/email/status/{broadcastId}", {
    params: { path: { broadcastId: emailBroadcast } },
  });
  return {
    callMessages: broadcast && "messages" in broadcast ? broadcast.messages.map((m) => m.call?.status) : undefined,
    emailRecipients: email.data?.data.recipients.map((r) => `${r.email}:${r.kind}`),
  };
}

/** Never called: each line is a mistake that the generated types must refuse (tsc fails if one is accepted). */
export function mistakesTheTypesRefuse(client: V2Client) {
  // @ts-expect-error the recipient is a string
  void client.POST("/api/v2/sms/send", { body: { ...OTP, recipient: 9876543210 } });
  // @ts-expect-error message is required
  void client.POST("/api/v2/sms/send", { body: { sender_id: "SWBRD", recipient: "9876543210" } });
  // @ts-expect-error no such field (the schema is closed: additionalProperties false)
  const body: components["schemas"]["SmsSendRequest"] = { ...OTP, senderId: "SWBRD" };
  void client.POST("/api/v2/sms/send", { body });
  // @ts-expect-error no such path
  void client.GET("/api/v2/sms/statuses/{id}", { params: { path: { id: "q1" } } });
  void client.GET("/api/v2/balance").then((answer) => {
    // @ts-expect-error the balance is a number
    const text: string | undefined = answer.data?.data.balance;
    // @ts-expect-error an error code outside the catalogue
    const known: boolean = answer.error?.error.code === "no_such_code";
    return [text, known];
  });
}
