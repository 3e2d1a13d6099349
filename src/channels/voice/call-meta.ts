// A call's own facts, kept in its message row's meta JSON: the units it was charged for and
// the provider's latest call status (ringing and in-progress have no message state of their
// own). A status only replaces one that comes earlier in a call's life, so late or repeated
// callbacks never move it back.
import type { MessageRow } from "../../base/store/schema.js";

export const CALL_STATUSES = [
  "queued",
  "initiated",
  "ringing",
  "in-progress",
  "completed",
  "busy",
  "no-answer",
  "failed",
  "canceled",
] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];

const STAGE: Record<CallStatus, number> = {
  queued: 1,
  initiated: 1,
  ringing: 2,
  "in-progress": 3,
  completed: 4,
  busy: 4,
  "no-answer": 4,
  failed: 4,
  canceled: 4,
};

export function isCallStatus(value: string): value is CallStatus {
  return (CALL_STATUSES as readonly string[]).includes(value);
}

export function isFinalCallStatus(status: CallStatus): boolean {
  return STAGE[status] === 4;
}

export interface CallMeta {
  units: number;
  speech_seconds: number;
  call_status?: CallStatus;
  /** Seconds the call lasted, as the provider reports it once the call ended. */
  call_duration?: number;
}

function parse(meta: string | null): Partial<CallMeta> {
  if (!meta) return {};
  try {
    const value = JSON.parse(meta) as unknown;
    return value !== null && typeof value === "object" ? (value as Partial<CallMeta>) : {};
  } catch {
    return {};
  }
}

/** The meta with `status` applied, or undefined when it tells nothing new (same or earlier stage). */
export function withCallStatus(
  meta: string | null,
  status: CallStatus,
  durationSeconds: number | undefined,
): string | undefined {
  const current = parse(meta);
  const known =
    current.call_status !== undefined && isCallStatus(current.call_status) ? current.call_status : undefined;
  if (known && STAGE[known] >= STAGE[status]) return undefined;
  const next: Partial<CallMeta> = { ...current, call_status: status };
  if (durationSeconds !== undefined) next.call_duration = durationSeconds;
  return JSON.stringify(next);
}

/** What GET /api/v2/sms/status/{id} shows of a call. */
export function callReport(row: Pick<MessageRow, "meta">) {
  const meta = parse(row.meta);
  return {
    status: meta.call_status ?? null,
    duration_seconds: meta.call_duration ?? null,
    units: meta.units ?? null,
    estimated_speech_seconds: meta.speech_seconds ?? null,
  };
}
