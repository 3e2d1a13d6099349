// A chain's steps checked before anything is stored or charged: each step's fields against its
// channel's own v2 send schema (without the recipient, which is the step's `to` or the chain's,
// and without a schedule: a step goes when its condition says), and the conditions between them.
import { type TObject, type TSchema, Type } from "typebox";
import { Value } from "typebox/value";
import { GatewayError } from "../../base/core/errors.js";
import { describeValidation } from "../../base/http/http-errors.js";
import type { ChainCondition } from "../../base/store/schema.js";
import { EmailSend } from "../email/index.js";
import { SEND_FIELDS } from "../sms/index.js";
import { WhatsAppSendBody } from "../whatsapp/index.js";
import type { CHAIN_CHANNELS } from "./schemas.js";

export type ChainChannel = (typeof CHAIN_CHANNELS)[number];

/** One step as stored: its channel, recipient, own fields and condition. */
export interface StepPlan {
  channel: ChainChannel;
  recipient: string;
  fields: Record<string, unknown>;
  after: { on: ChainCondition; withinMs: number | null } | null;
}

/** not_delivered and not_read watch the step before for this long unless told. */
export const DEFAULT_WITHIN_SECONDS = 300;

function without<T extends TObject>(schema: T, names: readonly string[], title: string): TObject {
  const properties = Object.fromEntries(Object.entries(schema.properties).filter(([name]) => !names.includes(name)));
  return Type.Object(properties as Record<string, TSchema>, { additionalProperties: false, title });
}

const STEP_FIELDS = {
  sms: Type.Object(
    Object.fromEntries(Object.entries(SEND_FIELDS).filter(([name]) => name !== "schedule_at")) as Record<
      string,
      TSchema
    >,
    { additionalProperties: false, title: "ChainSmsStep" },
  ),
  whatsapp: without(WhatsAppSendBody, ["to"], "ChainWhatsAppStep"),
  email: without(EmailSend, ["to", "send_at"], "ChainEmailStep"),
  voice: Type.Object(
    { from: Type.String({ maxLength: 32 }), text: Type.String({ maxLength: 8_000 }) },
    { additionalProperties: false, title: "ChainVoiceStep" },
  ),
} satisfies Record<ChainChannel, TObject>;

function invalid(index: number, message: string, field?: string): GatewayError {
  return new GatewayError("invalid_request", `steps[${index}]: ${message}`, {
    field: field === undefined ? `steps[${index}]` : `steps[${index}].${field}`,
  });
}

/** The steps of a request the route's schema has shaped, checked in full; the first problem throws. */
export function planSteps(
  recipient: string,
  steps: ReadonlyArray<{ channel: ChainChannel; to?: string; after?: { on: ChainCondition; within_seconds?: number } }>,
): StepPlan[] {
  return steps.map((step, index) => {
    const { channel, to, after, ...fields } = step;
    const schema = STEP_FIELDS[channel];
    const issues = [...Value.Errors(schema, fields)];
    if (issues.length > 0) {
      // In words, as a body's errors are (http-errors.ts), with what this channel's steps take.
      const { text, field } = describeValidation(issues, `${channel} step`, undefined);
      const takes = text.startsWith("Unknown field")
        ? ` ${channel} steps take: ${Object.keys(schema.properties).join(", ")}.`
        : "";
      throw invalid(index, `${text}${takes}`, field);
    }
    if (index === 0 && after !== undefined) {
      throw invalid(index, "the first step goes at once; only a later step has an after condition", "after");
    }
    const on = after?.on ?? "failed";
    if (index > 0 && on === "not_read" && steps[index - 1]?.channel !== "whatsapp") {
      throw invalid(index, "not_read follows only a whatsapp step (only WhatsApp reports reads)", "after.on");
    }
    const seconds = after?.within_seconds ?? (on === "failed" ? undefined : DEFAULT_WITHIN_SECONDS);
    return {
      channel,
      recipient: (to ?? recipient).trim(),
      fields,
      after: index === 0 ? null : { on, withinMs: seconds === undefined ? null : seconds * 1000 },
    };
  });
}
