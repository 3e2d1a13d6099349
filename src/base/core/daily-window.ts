// A daily window written `HH:MM-HH:MM` (its end after its start; `24:00` ends at midnight), as the
// promotional hours are (promo-hours.ts, decision 0124): parsed, written back and checked as an
// account's setting. Kept apart from promo-hours.ts, which needs luxon, so that reading the
// settings (config-values.ts) loads no date library.
import { GatewayError } from "./errors.js";

/** A daily window: its opening and closing minute of the day, closing excluded. */
export interface DailyWindow {
  readonly start: number;
  readonly end: number;
}

const WINDOW = /^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-3]|24):([0-5]\d)$/;

/** Parses `HH:MM-HH:MM`; undefined when it is not a window whose end comes after its start. */
export function parseDailyWindow(text: string): DailyWindow | undefined {
  const m = WINDOW.exec(text.trim());
  if (!m) return undefined;
  const start = Number(m[1]) * 60 + Number(m[2]);
  const end = Number(m[3]) * 60 + Number(m[4]);
  return end <= 1440 && end > start ? { start, end } : undefined;
}

const hhmm = (minutes: number) =>
  `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;

/** The window as written: `09:00-21:00`. */
export function formatDailyWindow(window: DailyWindow): string {
  return `${hhmm(window.start)}-${hhmm(window.end)}`;
}

/**
 * An account's promo_hours as stored (`09:00-21:00`), or null for the operator's; a bad window is
 * refused, and so is one not inside the operator's PROMO_HOURS (`operator`, when given): an
 * account's window only narrows the operator's, for consent hours narrower than the law's.
 */
export function promoHoursSetting(value: string | null, operator?: DailyWindow): string | null {
  if (value === null) return null;
  const window = parseDailyWindow(value);
  if (!window) {
    throw new GatewayError(
      "invalid_request",
      `promo_hours "${value}" is not a daily window HH:MM-HH:MM whose end comes after its start, such as 09:00-21:00 (00:00-24:00: never held; null: the operator's hours).`,
      { field: "promo_hours" },
    );
  }
  if (operator && (window.start < operator.start || window.end > operator.end)) {
    throw new GatewayError(
      "invalid_request",
      `promo_hours "${value}" is not inside the operator's promotional window ${formatDailyWindow(operator)} (PROMO_HOURS): an account's window may only narrow it. Give a window inside it, or null for the operator's.`,
      { field: "promo_hours", operator_window: formatDailyWindow(operator) },
    );
  }
  return formatDailyWindow(window);
}

/**
 * The window an account's promotional sends wait for: its own narrowed to the operator's (one
 * stored wider before windows were checked is cut to the operator's), the operator's when it has
 * none or the two do not meet.
 */
export function accountPromoWindow(account: DailyWindow | undefined, operator: DailyWindow): DailyWindow {
  if (!account) return operator;
  const start = Math.max(account.start, operator.start);
  const end = Math.min(account.end, operator.end);
  return end > start ? { start, end } : operator;
}
