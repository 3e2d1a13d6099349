// Where WhatsApp messages go: Meta's Cloud API (`whatsapp-cloud`) or the simulator, behind one
// small interface. Both answer a send synchronously and report statuses later, the cloud through
// Meta's webhook, the simulator through the same status sink.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { GraphClient, GraphError, type GraphOptions, type GraphTemplate } from "./graph.js";
import type { MetaError, StatusEvent } from "./meta-webhook.js";
import type { WhatsAppConnectorName, WhatsAppSender } from "./settings.js";
import { shapeOf } from "./templates.js";

export interface WhatsAppUpstream {
  /** Stored as the message's connector. */
  readonly name: string;
  /** Sends one message (Graph API payload); resolves with the upstream message id (wamid). Throws GraphError. */
  send(sender: WhatsAppSender, payload: Record<string, unknown>): Promise<{ messageId: string }>;
  /** The business account's templates. Throws GraphError. */
  listTemplates(sender: WhatsAppSender): Promise<GraphTemplate[]>;
  close(): Promise<void>;
}

export type Upstreams = Record<WhatsAppConnectorName, WhatsAppUpstream>;

export class CloudUpstream implements WhatsAppUpstream {
  readonly name = "whatsapp-cloud";
  private readonly client: GraphClient;

  constructor(options: GraphOptions) {
    this.client = new GraphClient(options);
  }

  send(sender: WhatsAppSender, payload: Record<string, unknown>) {
    return this.client.sendMessage(sender, payload);
  }

  listTemplates(sender: WhatsAppSender) {
    return this.client.listTemplates(sender);
  }

  close() {
    return this.client.close();
  }
}

/** The simulated business account's templates: one of each shape this API can send, and a paused one. */
export const SIMULATED_TEMPLATES: GraphTemplate[] = [
  {
    id: "sim-1",
    name: "hello_world",
    language: "en_US",
    status: "APPROVED",
    category: "UTILITY",
    components: [
      { type: "HEADER", format: "TEXT", text: "Hello World" },
      {
        type: "BODY",
        text: "Welcome and congratulations!! This message demonstrates your ability to send a WhatsApp message notification.",
      },
      { type: "FOOTER", text: "WhatsApp Business Platform sample message" },
    ],
  },
  {
    id: "sim-2",
    name: "otp_code",
    language: "en",
    status: "APPROVED",
    category: "AUTHENTICATION",
    components: [
      { type: "BODY", text: "*{{1}}* is your verification code. For your security, do not share this code." },
      { type: "BUTTONS", buttons: [{ type: "OTP", text: "Copy code" }] },
    ],
  },
  {
    id: "sim-3",
    name: "order_update",
    language: "en",
    status: "APPROVED",
    category: "UTILITY",
    components: [
      { type: "HEADER", format: "IMAGE" },
      { type: "BODY", text: "Hi {{1}}, your order {{2}} has shipped and arrives on {{3}}." },
    ],
  },
  {
    id: "sim-4",
    name: "invoice_ready",
    language: "en",
    status: "APPROVED",
    category: "UTILITY",
    components: [
      { type: "HEADER", format: "DOCUMENT" },
      { type: "BODY", text: "Hi {{1}}, invoice {{2}} is attached." },
    ],
  },
  {
    id: "sim-5",
    name: "welcome_offer",
    language: "en",
    status: "APPROVED",
    category: "MARKETING",
    components: [
      { type: "HEADER", format: "TEXT", text: "Welcome, {{1}}!" },
      { type: "BODY", text: "Get {{1}} off your first order with code {{2}}." },
    ],
  },
  {
    id: "sim-6",
    name: "namaste",
    language: "hi",
    status: "APPROVED",
    category: "UTILITY",
    components: [{ type: "BODY", text: "नमस्ते {{1}}, आपका ऑर्डर {{2}} भेज दिया गया है।" }],
  },
  {
    id: "sim-7",
    name: "festive_sale",
    language: "en",
    status: "PAUSED",
    category: "MARKETING",
    components: [{ type: "BODY", text: "Our festive sale is on: {{1}} off everything." }],
  },
];

/** The simulator's connector name, stored on its messages. */
export const SIMULATED_UPSTREAM = "whatsapp-simulator";

/** A status the simulator reports `after` ms after a send it took. */
export interface SimulatedStatus {
  status: "delivered" | "read" | "failed";
  after: number;
  errors: MetaError[];
}

const UNDELIVERABLE: MetaError = {
  code: 131026,
  title: "Message undeliverable",
  message: "Message undeliverable",
  details: "The recipient's phone number is not a WhatsApp phone number (simulated).",
};

/**
 * What follows `sent` for a message to `to`, `step` ms apart: its magic numbers' rules, which the
 * walk of messages a stopped process left behind (lost-statuses.ts) follows too.
 */
export function simulatedStatuses(to: string, step: number): SimulatedStatus[] {
  if (to.endsWith("0002")) return [{ status: "failed", after: step, errors: [UNDELIVERABLE] }];
  const delivered: SimulatedStatus = { status: "delivered", after: step, errors: [] };
  return to.endsWith("0001") ? [delivered] : [delivered, { status: "read", after: 2 * step, errors: [] }];
}

export interface SimulatorOptions {
  /** Milliseconds between sent, delivered and read. */
  latencyMs: number;
  now: () => number;
  /** Where simulated statuses go (the same path as Meta's webhook). */
  onStatus: (events: StatusEvent[]) => void;
  /** SIMULATOR_CAPTURE_FILE: each payload taken appended as a JSON line, as the SMS simulator does. */
  captureFile?: string | undefined;
}

/**
 * A business account that needs no network. Recipients ending in 0002 fail after sending
 * (131026, undeliverable), 0003 are refused by the upstream at once (HTTP 500, 131000), 0001
 * are delivered but never read; the rest go sent → delivered → read. The statuses wait on timers
 * of this process; those a stopped process never reported, upkeep reports (lost-statuses.ts).
 */
export class SimulatedUpstream implements WhatsAppUpstream {
  readonly name = SIMULATED_UPSTREAM;
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly options: SimulatorOptions) {}

  async listTemplates(_sender: WhatsAppSender): Promise<GraphTemplate[]> {
    return SIMULATED_TEMPLATES.map((t) => structuredClone(t));
  }

  async send(sender: WhatsAppSender, payload: Record<string, unknown>): Promise<{ messageId: string }> {
    const to = String(payload.to ?? "");
    if (to.endsWith("0003")) {
      throw new GraphError("(#131000) Something went wrong", {
        kind: "http",
        httpStatus: 500,
        code: 131000,
        title: "Something went wrong",
      });
    }
    if (payload.type === "template") this.checkTemplate(payload.template as SimTemplateRef);
    const messageId = `wamid.SIM${randomBytes(12).toString("base64url")}`;
    if (this.options.captureFile) {
      const line = { upstream_id: messageId, channel: "whatsapp", recipient: to, payload, at: this.options.now() };
      fs.appendFileSync(this.options.captureFile, `${JSON.stringify(line)}\n`);
    }
    const event = (status: StatusEvent["status"], errors: StatusEvent["errors"] = []): StatusEvent => ({
      phoneNumberId: sender.phoneNumberId,
      messageId,
      status,
      at: this.options.now(),
      recipientId: to,
      errors,
    });
    this.later(0, () => event("sent"));
    for (const next of simulatedStatuses(to, this.options.latencyMs)) {
      this.later(next.after, () => event(next.status, next.errors));
    }
    return { messageId };
  }

  private checkTemplate(ref: SimTemplateRef): void {
    const template = SIMULATED_TEMPLATES.find((t) => t.name === ref?.name && t.language === ref.language?.code);
    if (template?.status !== "APPROVED") {
      throw new GraphError("(#132001) Template name does not exist in the translation", {
        kind: "http",
        httpStatus: 400,
        code: 132001,
        title: "Template name does not exist in the translation",
        details: `template name (${ref?.name}) does not exist in ${ref?.language?.code}`,
      });
    }
    const body = ref.components?.find((c) => c.type === "body");
    if ((body?.parameters?.length ?? 0) !== shapeOf(template).paramCount) {
      throw new GraphError("(#132000) Number of parameters does not match the expected number of params", {
        kind: "http",
        httpStatus: 400,
        code: 132000,
        title: "Number of parameters does not match the expected number of params",
      });
    }
  }

  private later(ms: number, make: () => StatusEvent): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.closed) this.options.onStatus([make()]);
    }, ms);
    timer.unref?.();
    this.timers.add(timer);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}

interface SimTemplateRef {
  name?: string;
  language?: { code?: string };
  components?: Array<{ type?: string; parameters?: unknown[] }>;
}
