// Promotional hours (issue 40, item 4; decision 0124): Indian operators deliver promotional SMS
// (routes P and PS) only inside a daily window of the recipient's time, 09:00–21:00 by TRAI's
// rules (the window: daily-window.ts; `00:00-24:00` never holds). `releaseAt` answers the first
// instant at or after `at` inside the window: `at` itself, or the window's next opening.
import { DateTime } from "luxon";
import type { DailyWindow } from "./daily-window.js";

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
