// Account-local time: schedules (`YYYY-MM-DD HH:MM:SS`) and report dates are read in the
// account's IANA zone; everything is stored in UTC.
import { DateTime } from "luxon";

/** Parses `YYYY-MM-DD HH:MM:SS` (seconds optional) in `zone`; undefined when it is not a real time. */
export function parseLocalDateTime(text: string, zone: string): Date | undefined {
  const trimmed = text.trim();
  // Hours 00-23 only: luxon would read 24:00:00 as the next day's midnight.
  if (!/^\d{4}-\d{2}-\d{2}[ T]([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/.test(trimmed)) return undefined;
  const normalized = trimmed.replace("T", " ");
  const format = normalized.length === 16 ? "yyyy-MM-dd HH:mm" : "yyyy-MM-dd HH:mm:ss";
  const parsed = DateTime.fromFormat(normalized, format, { zone });
  return parsed.isValid ? parsed.toJSDate() : undefined;
}

/** Parses a `YYYYMMDD` day in `zone` into its [start, end) UTC range. */
export function localDayRange(day: string, zone: string): [Date, Date] | undefined {
  if (!/^\d{8}$/.test(day)) return undefined;
  const start = DateTime.fromFormat(day, "yyyyMMdd", { zone });
  if (!start.isValid) return undefined;
  return [start.toJSDate(), start.plus({ days: 1 }).toJSDate()];
}

const dayCache = new Map<string, { day: string; from: number; until: number }>();

/** The account-local calendar day of an instant, as yyyymmdd (memoised per zone: it is on the send path). */
export function localDay(date: Date, zone: string): string {
  const t = date.getTime();
  const hit = dayCache.get(zone);
  if (hit && t >= hit.from && t < hit.until) return hit.day;
  const local = DateTime.fromJSDate(date, { zone });
  const day = local.toFormat("yyyyMMdd");
  const start = local.startOf("day");
  if (dayCache.size > 1000) dayCache.clear();
  dayCache.set(zone, { day, from: start.toMillis(), until: start.plus({ days: 1 }).toMillis() });
  return day;
}

/** ISO 8601 with the zone's offset, e.g. 2026-11-22T12:00:00+05:30. */
export function isoWithOffset(date: Date, zone: string): string {
  // An offset always, +00:00 in UTC too (luxon's toISO writes Z in a fixed zero-offset zone).
  const local = DateTime.fromJSDate(date, { zone });
  return local.isValid ? local.toFormat("yyyy-MM-dd'T'HH:mm:ssZZ") : date.toISOString();
}

// An offset's hours 00-23 and minutes 00-59, as RFC 3339 has them: luxon reads +25:00 or +99:99
// as a shift of a day or more, which moved a list's window where nobody asked.
const INSTANT =
  /^\d{4}-\d{2}-\d{2}(?:[T ]([01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,3})?)?(?:Z|[+-]([01]\d|2[0-3]):?[0-5]\d)?)?$/i;

/**
 * An instant written in ISO 8601 (`2026-11-22T08:30:00Z`, `…+05:30`), or without a zone in
 * `zone` (`2026-11-22 14:00`, `2026-11-22T14:00:00`); a bare date is the start of that day in
 * `zone`, or with `endOfDay` the start of the next (so a range `to` a date includes the day).
 * Undefined when it is not a real time (an offset beyond ±23:59 included).
 */
export function parseInstant(text: string, zone: string, endOfDay = false): Date | undefined {
  const trimmed = text.trim();
  if (!INSTANT.test(trimmed)) return undefined;
  const parsed = DateTime.fromISO(trimmed.replace(" ", "T"), { zone });
  if (!parsed.isValid) return undefined;
  return (trimmed.length === 10 && endOfDay ? parsed.plus({ days: 1 }) : parsed).toJSDate();
}
