// Promotional hours (issue 40, item 4; decision 0117): Indian operators deliver promotional SMS
// (routes P and PS) only inside a daily window of the recipient's time, 09:00–21:00 by TRAI's
// rules. A window is written `HH:MM-HH:MM`, its end after its start (`24:00` ends at midnight;
// `00:00-24:00` never holds). `releaseAt` answers the first instant at or after `at` inside the
// window: `at` itself, or the window's next opening.
import { DateTime } from "luxon";
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

/** The first instant (epoch ms) at or after `at` inside the window, read in `zone`. */
export function releaseAt(window: DailyWindow, zone: string, at: number): number {
  const local = DateTime.fromMillis(at, { zone });
  const minute = local.hour * 60 + local.minute;
  if (minute >= window.start && minute < window.end) return at;
  const day = minute < window.start ? local : local.plus({ days: 1 });
  return day
    .set({ hour: Math.floor(window.start / 60), minute: window.start % 60, second: 0, millisecond: 0 })
    .toMillis();
}

/** An account's promo_hours as stored (`09:00-21:00`), or null for the operator's; a bad window is refused. */
export function promoHoursSetting(value: string | null): string | null {
  if (value === null) return null;
  const window = parseDailyWindow(value);
  if (!window) {
    throw new GatewayError(
      "invalid_request",
      `promo_hours "${value}" is not a daily window HH:MM-HH:MM whose end comes after its start, such as 09:00-21:00 (00:00-24:00: never held; null: the operator's hours).`,
    );
  }
  return formatDailyWindow(window);
}
