// Environment variables that look like a setting but are not one (METRIC_TOKEN, SWITCHBORD_PORT,
// REDIS_REQUIERD), and a guard set to nothing (METRICS_TOKEN=): what `start` warns of once and
// `doctor` reports as a warning (check "environment"). A misspelt name is ignored, so the setting
// it meant keeps its default; a warning, not a refusal (docs/decisions/0181-…).
import fs from "node:fs";
import { SETTINGS, type SettingName } from "./settings.js";

/** The first words of the gateway's own settings: an unknown name that starts with one is a mistake. */
const PREFIXES = [
  "SWITCHBOARD_",
  "SMPP_",
  "SQLITE_",
  "DLT_",
  "SMTP_",
  "WHATSAPP_",
  "VOICE_",
  "VERIFY_",
  "SIMULATOR_",
  "METRICS_",
  "REDIS_",
];

/** Variables with those prefixes that belong to the test suite and CI, not to the gateway. */
export const NOT_SETTINGS = new Set([
  "TEST_DATABASE_URL",
  "REDIS_TEST_URL",
  "SWITCHBOARD_REQUIRE_POSTGRES",
  "SWITCHBOARD_REQUIRE_BROWSER",
  "SWITCHBOARD_REQUIRE_PERL_SMSC",
  "SWITCHBOARD_REQUIRE_NGINX",
  "SWITCHBOARD_TEST_CLI",
  "SWITCHBOARD_SCREENSHOTS",
  "SWITCHBOARD_SHOTS_DIR",
]);

/** Settings whose empty value leaves something open (taken as unset), and what. */
export const GUARDS: Partial<Record<SettingName, string>> = {
  METRICS_TOKEN: "/metrics answers whoever reaches the HTTP port",
};

/** Levenshtein distance, upper case; enough for names of a few dozen characters. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** How far a name may be from a setting to be taken for a misspelling of it: none for PORT and HOST (HOME is 2 from HOST). */
function tolerance(setting: string): number {
  if (setting.length <= 4) return 0;
  return setting.length < 10 ? 1 : 2;
}

const NAMES = Object.keys(SETTINGS) as SettingName[];

/** The setting `name` most likely meant, if one is close enough. */
function closeSetting(name: string): SettingName | undefined {
  let best: { setting: SettingName; distance: number } | undefined;
  for (const setting of NAMES) {
    const distance = editDistance(name, setting);
    if (distance <= tolerance(setting) && (!best || distance < best.distance)) best = { setting, distance };
  }
  return best?.setting;
}

/** The project prefix `name` starts with, or one letter off (SWITCHBORD_): and what follows it. */
function projectPrefix(name: string): { prefix: string; rest: string } | undefined {
  for (const prefix of PREFIXES) {
    if (name.startsWith(prefix)) return { prefix, rest: name.slice(prefix.length) };
  }
  const cut = name.indexOf("_");
  if (cut < 0) return undefined;
  const first = name.slice(0, cut + 1);
  const near = PREFIXES.find((prefix) => prefix.length >= 7 && editDistance(first, prefix) === 1);
  return near ? { prefix: near, rest: name.slice(cut + 1) } : undefined;
}

/**
 * What is wrong with the environment's names and guards, one sentence each. `elsewhere`: names
 * the gateway reads that are no setting (the carriers file's ${NAME}s).
 */
export function environmentWarnings(
  env: Record<string, string | undefined>,
  elsewhere: Iterable<string> = [],
): string[] {
  const known = new Set<string>(NAMES);
  const skip = new Set([...NOT_SETTINGS, ...elsewhere]);
  const warnings: string[] = [];
  for (const name of Object.keys(env).sort()) {
    const value = env[name];
    if (value === undefined) continue;
    if (known.has(name)) {
      const open = GUARDS[name as SettingName];
      if (open && value.trim() === "") {
        warnings.push(`${name} is set but empty, which counts as unset: ${open}. Give it a value, or remove the line`);
      }
      continue;
    }
    if (skip.has(name)) continue;
    const upper = name.toUpperCase();
    if (known.has(upper)) {
      warnings.push(`${name} is not a setting (names are upper case): did you mean ${upper}? It is ignored`);
      continue;
    }
    const close = closeSetting(upper);
    if (close) {
      warnings.push(`${name} is not a setting: did you mean ${close}? It is ignored, and ${close} keeps its value`);
      continue;
    }
    const prefixed = projectPrefix(upper);
    if (prefixed) {
      const meant = known.has(prefixed.rest) ? prefixed.rest : closeSetting(prefixed.rest);
      warnings.push(
        `${name} looks like a Switchboard setting (${prefixed.prefix}…) but is not one; it is ignored${meant ? `: did you mean ${meant}?` : " (README, Settings, lists them)"}`,
      );
    }
  }
  return warnings;
}

/** The ${NAME}s a carriers file reads from the environment (none when it cannot be read: the start says why). */
export function carriersFileVariables(file: string | undefined): string[] {
  if (!file) return [];
  try {
    return [...fs.readFileSync(file, "utf8").matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((match) => match[1]!);
  } catch {
    return [];
  }
}
