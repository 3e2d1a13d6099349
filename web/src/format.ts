// How the console writes times, numbers and credits. Times are shown in the account's time
// zone (the session's), with the zone named, never in the browser's.

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string, kind: "full" | "time" | "day"): Intl.DateTimeFormat {
  const key = `${timeZone}|${kind}`;
  let found = formatters.get(key);
  if (!found) {
    const options: Intl.DateTimeFormatOptions =
      kind === "time"
        ? { hour: "2-digit", minute: "2-digit", hourCycle: "h23" }
        : kind === "day"
          ? { year: "numeric", month: "short", day: "2-digit" }
          : {
              year: "numeric",
              month: "short",
              day: "2-digit",
              hour: "2-digit",
              minute: "2-digit",
              second: "2-digit",
              hourCycle: "h23",
            };
    found = new Intl.DateTimeFormat("en-GB", { ...options, timeZone });
    formatters.set(key, found);
  }
  return found;
}

function toDate(value: string | number | Date): Date {
  return value instanceof Date ? value : new Date(value);
}

/** "22 Nov 2026, 14:00:43" in the zone; an empty string for null. */
export function formatTime(value: string | number | Date | null | undefined, timeZone: string): string {
  if (value === null || value === undefined || value === "") return "";
  const date = toDate(value);
  if (Number.isNaN(date.getTime())) return String(value);
  return formatter(timeZone, "full").format(date);
}

export function formatClock(value: string | number | Date, timeZone: string): string {
  return formatter(timeZone, "time").format(toDate(value));
}

export function formatDay(value: string | number | Date, timeZone: string): string {
  return formatter(timeZone, "day").format(toDate(value));
}

const numberFormat = new Intl.NumberFormat("en-US", { maximumFractionDigits: 3 });

export function formatNumber(value: number | null | undefined): string {
  return value === null || value === undefined ? "" : numberFormat.format(value);
}

/** Now on the zone's wall clock as a datetime-local input writes it ("2026-12-01T18:30"). */
export function wallClockNow(timeZone: string, now = new Date()): string {
  // Sweden writes dates as ISO 8601 does: "2026-12-01 18:30".
  const text = new Intl.DateTimeFormat("sv-SE", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).format(now);
  return text.replace(" ", "T");
}

/** A datetime-local value ("2026-12-01T18:30", a wall clock of no zone) written as the console writes times. */
export function formatWallClock(local: string): string {
  return formatTime(`${local}:00Z`, "UTC");
}

/** Short abbreviation of the zone ("IST", "UTC", "GMT+5:30") for table headers. */
export function zoneLabel(timeZone: string): string {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "short" }).formatToParts(new Date());
  return parts.find((part) => part.type === "timeZoneName")?.value ?? timeZone;
}

/** An instant in the API's words (ISO 8601 UTC, as a timeline's detail says "due …"). */
const ISO_INSTANT = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z\b/g;

/** `text` with each ISO 8601 instant in it written as every other time of the console is. */
export function formatInstantsIn(text: string, timeZone: string): string {
  return text.replace(ISO_INSTANT, (instant) => formatTime(instant, timeZone));
}

/** "1 credit", "2 credits", "1.5 credits", "0 duplicates": a count with its noun in agreement. */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${formatNumber(count)} ${count === 1 ? singular : pluralForm}`;
}

const WALLET_NAMES: Record<string, string> = {
  sms: "SMS",
  international: "International SMS",
  whatsapp: "WhatsApp",
  email: "Email",
  voice: "Voice",
};

/** A wallet or channel as people write it ("WhatsApp", "SMS"); an unknown one as the API names it. */
export function walletName(wallet: string): string {
  return WALLET_NAMES[wallet] ?? wallet;
}
