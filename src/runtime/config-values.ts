// Readers of the settings whose values have a shape of their own: URLs, connector names, the
// opt-out words, the database target. Each reports a problem with the setting's description and
// answers a usable value, so every problem is listed at once.
import path from "node:path";
import type { DatabaseTarget } from "../store/store.js";
import { DEFAULT_OPT_OUT_WORDS, SETTINGS, type SettingName } from "./settings.js";

/** One of the connector names a setting allows; the first (the simulator) when unset or not one of them. */
export function connectorName<T extends string>(
  name: SettingName,
  raw: string | undefined,
  names: readonly [T, ...T[]],
  problems: string[],
): T {
  if (raw === undefined) return names[0];
  const known = names.find((known) => known === raw);
  if (known !== undefined) return known;
  problems.push(`${name} must be ${names.join(" or ")} (got "${raw}"). ${SETTINGS[name]}`);
  return names[0];
}

export function optionalHttpUrl(name: SettingName, raw: string | undefined, problems: string[]): string | undefined {
  return raw === undefined ? undefined : httpUrl(name, raw, problems);
}

export function sayLanguage(raw: string, problems: string[]): string {
  if (/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(raw)) return raw;
  problems.push(`VOICE_SAY_LANGUAGE must be a language tag like en-IN (got "${raw}"). ${SETTINGS.VOICE_SAY_LANGUAGE}`);
  return "en-IN";
}

export function httpUrl(name: SettingName, raw: string, problems: string[]): string {
  try {
    const url = new URL(raw);
    if (url.protocol === "http:" || url.protocol === "https:") return raw.replace(/\/+$/, "");
  } catch {
    // reported below
  }
  problems.push(`${name} must be an http(s) URL (got "${raw}"). ${SETTINGS[name]}`);
  return raw;
}

export function graphVersion(raw: string, problems: string[]): string {
  if (/^v\d{1,2}\.\d$/.test(raw)) return raw;
  problems.push(`WHATSAPP_GRAPH_VERSION must look like v21.0 (got "${raw}"). ${SETTINGS.WHATSAPP_GRAPH_VERSION}`);
  return "v21.0";
}

export function smtpUrl(raw: string | undefined, problems: string[]): string | undefined {
  if (raw === undefined) return undefined;
  try {
    const url = new URL(raw);
    if ((url.protocol === "smtp:" || url.protocol === "smtps:") && url.hostname !== "") return raw;
  } catch {
    // reported below
  }
  problems.push(`SMTP_URL must look like smtp://user:password@host:587 (got "${raw.replace(/:[^:@/]*@/, ":***@")}").`);
  return undefined;
}

export function parseOptOutWords(raw: string | undefined, problems: string[]): ReadonlySet<string> {
  if (raw === undefined) return new Set(DEFAULT_OPT_OUT_WORDS);
  const words = raw
    .split(",")
    .map((word) => word.trim().toUpperCase())
    .filter((word) => word !== "");
  const bad = words.filter((word) => !/^[A-Z0-9]{1,30}$/.test(word) || word === "START");
  if (words.length === 0 || bad.length > 0) {
    problems.push(
      `OPT_OUT_WORDS must be comma-separated words of 1 to 30 letters or digits, not START (got "${raw}"). ${SETTINGS.OPT_OUT_WORDS}`,
    );
    return new Set(DEFAULT_OPT_OUT_WORDS);
  }
  return new Set(words);
}

export function parseDatabaseUrl(raw: string | undefined, cwd: string, problems: string[]): DatabaseTarget {
  if (raw === undefined) return { engine: "sqlite", file: path.resolve(cwd, "data", "switchboard.db") };
  if (/^postgres(ql)?:\/\//.test(raw)) {
    try {
      new URL(raw);
      return { engine: "postgres", url: raw };
    } catch {
      problems.push(
        `DATABASE_URL is not a valid PostgreSQL URL (got "${raw}"). Example: postgres://postgres@127.0.0.1:5432/switchboard`,
      );
      return { engine: "postgres", url: raw };
    }
  }
  if (raw.startsWith("sqlite:")) {
    const file = raw.slice("sqlite:".length).replace(/^\/\/(?=\/)/, "");
    if (file === "") {
      problems.push('DATABASE_URL "sqlite:" needs a file path, e.g. sqlite:./data/switchboard.db');
      return { engine: "sqlite", file: path.resolve(cwd, "data", "switchboard.db") };
    }
    return { engine: "sqlite", file: file === ":memory:" ? file : path.resolve(cwd, file) };
  }
  problems.push(
    `DATABASE_URL must start with sqlite: or postgres:// (got "${raw}"). Leave it unset for the embedded SQLite file ./data/switchboard.db.`,
  );
  return { engine: "sqlite", file: path.resolve(cwd, "data", "switchboard.db") };
}
