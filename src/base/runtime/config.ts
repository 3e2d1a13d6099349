// Reads the settings of settings.ts from the environment into Config, whose type follows from that
// table, and checks the few that depend on each other.
import type { DatabaseTarget } from "../store/store.js";
import { type Parser, Refusal, type SettingSpec } from "./config-values.js";
import { describeSetting, SETTINGS, type SettingName } from "./settings.js";

export type { DatabaseTarget };

type Table = typeof SETTINGS;
type FieldOf<S> = S extends { field: infer F extends string } ? F : never;
type ValueOf<S> = S extends { parser: Parser<infer T> } ? (S extends { default: unknown } ? T : T | undefined) : never;
/** The name within a section of a setting whose field is F: "graphUrl" of "whatsapp.graphUrl" at "whatsapp.". */
type NameAt<F, Prefix extends string> = F extends `${Prefix}${infer Name}`
  ? Name extends `${string}.${string}`
    ? never
    : Name
  : never;
/** The settings whose field is `${Prefix}name`, as { name: value }. */
type FieldsAt<Prefix extends string> = {
  -readonly [N in keyof Table as NameAt<FieldOf<Table[N]>, Prefix>]: ValueOf<Table[N]>;
};
type SectionOf<F> = F extends `${infer S}.${string}` ? S : never;
type Section = SectionOf<FieldOf<Table[keyof Table]>>;

/** Each field is the value of the setting whose `field` names it; its description says what it means. */
export type Config = FieldsAt<""> & { [S in Section]: FieldsAt<`${S}.`> };
export type WhatsAppConfig = Config["whatsapp"];
export type VoiceConfig = Config["voice"];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const problems: string[] = [];
  const read = (name: SettingName): string | undefined => {
    const value = env[name]?.trim();
    return value === "" ? undefined : value;
  };

  const fields: Record<string, unknown> = {};
  const sections: Record<string, Record<string, unknown>> = {};
  for (const name of Object.keys(SETTINGS) as SettingName[]) {
    const setting: SettingSpec = SETTINGS[name];
    if (setting.field === null) continue;
    const value = settingValue(name, setting, read(name), cwd, problems);
    const [first, second] = setting.field.split(".") as [string, string?];
    if (second === undefined) fields[first] = value;
    else sections[first] = { ...sections[first], [second]: value };
  }
  // The walk above put each setting's value at its field, which is what Config says.
  const config = { ...fields, ...sections } as Config;

  if (config.redisRequired && read("REDIS_URL") === undefined) {
    problems.push(`REDIS_REQUIRED needs REDIS_URL. ${describeSetting("REDIS_URL")}`);
  }
  if (config.email.connector === "smtp" && config.email.smtpUrl === undefined) {
    problems.push(`EMAIL_CONNECTOR=smtp needs SMTP_URL. ${describeSetting("SMTP_URL")}`);
  }
  if (config.voice.connector === "voice-http") {
    for (const name of ["VOICE_HTTP_ACCOUNT_SID", "VOICE_HTTP_AUTH_TOKEN", "VOICE_CALLBACK_URL"] as const) {
      if (read(name) === undefined) problems.push(`VOICE_CONNECTOR=voice-http needs ${name}. ${describeSetting(name)}`);
    }
  }
  const smpp = config.smppServer;
  if (smpp.tlsPort !== 0 && (smpp.tlsCertFile === undefined || smpp.tlsKeyFile === undefined)) {
    problems.push("SMPP_SERVER_TLS_PORT needs SMPP_SERVER_TLS_CERT and SMPP_SERVER_TLS_KEY (PEM files).");
  }
  const tags = [smpp.dltEntityTag, smpp.dltTemplateTag, smpp.dltTmChainTag];
  if (new Set(tags).size < tags.length) {
    problems.push(
      "SMPP_SERVER_DLT_ENTITY_TAG, SMPP_SERVER_DLT_TEMPLATE_TAG and SMPP_SERVER_DLT_TM_CHAIN_TAG must differ.",
    );
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** The value given, or the default when unset or refused (a refusal is added to problems). */
function settingValue(
  name: SettingName,
  setting: Extract<SettingSpec, { field: string }>,
  raw: string | undefined,
  cwd: string,
  problems: string[],
): unknown {
  const parse = (value: string) => setting.parser.parse(value, cwd);
  const written = typeof setting.default === "string" ? setting.default : setting.default?.raw();
  const fallback = written === undefined ? undefined : parse(written);
  if (fallback instanceof Refusal) throw new Error(`The default of ${name} (${written}) ${fallback.reason}.`);
  if (raw === undefined) return fallback;
  const value = parse(raw);
  if (!(value instanceof Refusal)) return value;
  problems.push(`${name} ${value.reason} (got "${value.got ?? raw}"). ${describeSetting(name)}`);
  return fallback;
}
