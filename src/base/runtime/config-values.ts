// What a setting of settings.ts is, and the parsers of its values: each reads one environment
// value (trimmed, never empty) into what the gateway uses, or answers a Refusal saying what it must be.
import path from "node:path";
import ipaddr from "ipaddr.js";
import { type DailyWindow, parseDailyWindow } from "../core/daily-window.js";
import { ERROR_CATALOGUE } from "../core/errors.js";
import { isTimeZone } from "../core/time-zone-names.js";
import type { DatabaseTarget } from "../store/store.js";

/** Why a value was refused ("must be …", "needs …"); `got` replaces the value quoted back (a password hidden). */
export class Refusal {
  constructor(
    readonly reason: string,
    readonly got?: string,
  ) {}
}

export interface Parser<T> {
  parse(raw: string, cwd: string): T | Refusal;
  /** The accepted range, shown beside the default ("1 to 720"). */
  readonly range?: string;
  /** How a default is shown when not as written ("off" for a flag's 0). */
  show?(raw: string): string;
}

/** A default that depends on the machine, and how the README says it. */
export interface MachineDefault {
  shown: string;
  raw(): string;
}

/** One environment variable: where loadConfig puts it, what it means, its default and its parser. */
export type SettingSpec =
  | {
      /** The field of Config, or "section.field". */
      field: string;
      /** What it does; the default is added from `default`, never written here. */
      description: string;
      /** As written in the environment. Absent: unset leaves the field undefined (the description says what that means). */
      default?: string | MachineDefault;
      parser: Parser<unknown>;
    }
  /** Read elsewhere, straight from the environment; listed for its description. */
  | { field: null; description: string };

/** The same parser, its value converted (MiB to bytes, a flag turned around). */
export function map<T, U>(parser: Parser<T>, convert: (value: T) => U): Parser<U> {
  return {
    ...parser,
    parse: (raw, cwd) => {
      const value = parser.parse(raw, cwd);
      return value instanceof Refusal ? value : convert(value);
    },
  };
}

export const text: Parser<string> = { parse: (raw) => raw };

/** A daily window, `HH:MM-HH:MM` (core/promo-hours.ts). */
export const dailyWindow: Parser<DailyWindow> = {
  parse: (raw) =>
    parseDailyWindow(raw) ??
    new Refusal("must be a daily window HH:MM-HH:MM, its end after its start, such as 09:00-21:00"),
};

/** An IANA time zone name. */
export const timeZone: Parser<string> = {
  parse: (raw) => (isTimeZone(raw) ? raw : new Refusal("must be an IANA time zone name such as Asia/Kolkata")),
};

export function wholeNumber(min: number, max: number): Parser<number> {
  return {
    range: `${min} to ${max}`,
    parse: (raw) =>
      /^\d+$/.test(raw) && Number(raw) >= min && Number(raw) <= max
        ? Number(raw)
        : new Refusal(`must be a whole number from ${min} to ${max}`),
  };
}

export const ratio: Parser<number> = {
  range: "0 to 1",
  parse: (raw) => {
    const value = Number(raw);
    return Number.isFinite(value) && value >= 0 && value <= 1 ? value : new Refusal("must be a number from 0 to 1");
  },
};

export const flag: Parser<boolean> = {
  show: (raw) => (raw === "1" ? "on" : "off"),
  parse: (raw) => {
    const value = raw.toLowerCase();
    if (value === "1" || value === "true") return true;
    if (value === "0" || value === "false") return false;
    return new Refusal("must be 1, true, 0 or false");
  },
};

/** One of a few words, as written (or in any case, answered as listed). */
export function oneOf<const T extends string>(values: readonly [T, ...T[]], { anyCase = false } = {}): Parser<T> {
  const listed =
    values.length > 3 ? `one of ${values.join(", ")}` : `${values.slice(0, -1).join(", ")} or ${values.at(-1)}`;
  return {
    parse: (raw) =>
      values.find((value) => (anyCase ? value.toLowerCase() === raw.toLowerCase() : value === raw)) ??
      new Refusal(`must be ${listed}`),
  };
}

/** A port to listen on; 0 turns the listener off and `auto` takes a free port (tests). */
export const listenPort: Parser<number | "auto"> = {
  range: "0 to 65535 or auto",
  parse: (raw) =>
    raw.toLowerCase() === "auto"
      ? "auto"
      : /^\d+$/.test(raw) && Number(raw) <= 65535
        ? Number(raw)
        : new Refusal("must be auto or a whole number from 0 to 65535"),
};

/** A DLT telemarketer ID as registered: 1 to 30 letters or digits (usually 19 digits), upper-cased. */
export const dltTmId: Parser<string> = {
  parse: (raw) =>
    /^[A-Za-z0-9]{1,30}$/.test(raw.trim())
      ? raw.trim().toUpperCase()
      : new Refusal("must be a DLT telemarketer ID: 1 to 30 letters or digits"),
};

/** A DLT promotional header: 6 digits, as DLT registers headers for promotional SMS. */
export const promotionalHeader: Parser<string> = {
  parse: (raw) => (/^\d{6}$/.test(raw) ? raw : new Refusal("must be a DLT promotional header: 6 digits")),
};

/** An SMPP vendor-specific TLV tag, hex (0x1400) or decimal. */
export const vendorTlvTag: Parser<number> = {
  range: "0x1400 to 0x3FFF, hex or decimal",
  parse: (raw) => {
    const value = /^0x[0-9a-f]+$/i.test(raw)
      ? Number.parseInt(raw.slice(2), 16)
      : /^\d+$/.test(raw)
        ? Number(raw)
        : Number.NaN;
    return value >= 0x1400 && value <= 0x3fff ? value : new Refusal("must be a vendor TLV tag from 0x1400 to 0x3FFF");
  },
};

/** An http(s) URL, without its trailing slashes. */
export const httpUrl: Parser<string> = {
  parse: (raw) => {
    try {
      const url = new URL(raw);
      if (url.protocol === "http:" || url.protocol === "https:") return raw.replace(/\/+$/, "");
    } catch {
      // refused below
    }
    return new Refusal("must be an http(s) URL");
  },
};

/** The names proxy-addr (Fastify's trustProxy) knows for sets of ranges. */
const PROXY_RANGE_NAMES = new Set(["loopback", "linklocal", "uniquelocal"]);

/** An address, a CIDR range (not /0: that trusts everyone) or one of proxy-addr's names. */
function isProxyEntry(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  try {
    if (!entry.includes("/")) return ipaddr.isValid(entry);
    const [, bits] = ipaddr.parseCIDR(entry);
    return bits > 0;
  } catch {
    return false;
  }
}

/** Comma-separated addresses, CIDR ranges or proxy-addr's names: Fastify's trustProxy list. */
export const proxyAddresses: Parser<string[]> = {
  parse: (raw) => {
    const entries = raw
      .split(",")
      .map((entry) => entry.trim())
      .filter((entry) => entry !== "");
    return entries.length > 0 && entries.every(isProxyEntry)
      ? entries
      : new Refusal(
          "must be comma-separated IP addresses or CIDR ranges of the proxies (e.g. 127.0.0.1,10.0.0.0/8), or loopback, linklocal, uniquelocal",
        );
  },
};

/** A bearer token: visible ASCII, long enough not to be guessed. */
export const bearerToken: Parser<string> = {
  parse: (raw) =>
    /^[\x21-\x7e]{16,256}$/.test(raw)
      ? raw
      : new Refusal(
          "must be 16 to 256 visible ASCII characters without spaces (e.g. openssl rand -hex 32)",
          "(hidden)",
        ),
};

export const redisUrl: Parser<string> = {
  parse: (raw) => (/^rediss?:\/\/\S+$/.test(raw) ? raw : new Refusal("must look like redis://127.0.0.1:6379")),
};

export const smtpUrl: Parser<string> = {
  parse: (raw) => {
    try {
      const url = new URL(raw);
      if ((url.protocol === "smtp:" || url.protocol === "smtps:") && url.hostname !== "") return raw;
    } catch {
      // refused below
    }
    return new Refusal("must look like smtp://user:password@host:587", raw.replace(/:[^:@/]*@/, ":***@"));
  },
};

export const graphVersion: Parser<string> = {
  parse: (raw) => (/^v\d{1,2}\.\d$/.test(raw) ? raw : new Refusal("must look like v21.0")),
};

export const languageTag: Parser<string> = {
  parse: (raw) =>
    /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(raw) ? raw : new Refusal("must be a language tag like en-IN"),
};

/** Comma-separated words, upper-cased; START is taken (it lifts an opt-out). */
export const optOutWords: Parser<ReadonlySet<string>> = {
  parse: (raw) => {
    const words = raw
      .split(",")
      .map((word) => word.trim().toUpperCase())
      .filter((word) => word !== "");
    const bad = words.filter((word) => !/^[A-Z0-9]{1,30}$/.test(word) || word === "START");
    if (words.length === 0 || bad.length > 0) {
      return new Refusal("must be comma-separated words of 1 to 30 letters or digits, not START");
    }
    return new Set(words);
  },
};

/** `none`, or comma-separated reasons of the error catalogue; `dlt_*` stands for every DLT reason. */
export const refundReasons: Parser<ReadonlySet<string>> = {
  parse: (raw) => {
    if (raw.toLowerCase() === "none") return new Set();
    const reasons = new Set<string>();
    for (const word of raw.split(",").map((item) => item.trim().toLowerCase())) {
      if (word === "dlt_*") {
        for (const code of Object.keys(ERROR_CATALOGUE)) if (code.startsWith("dlt_")) reasons.add(code);
      } else if (Object.hasOwn(ERROR_CATALOGUE, word)) reasons.add(word);
      else
        return new Refusal(
          `must be none, or comma-separated reasons of the error catalogue or dlt_* (${word || "an empty item"} is not one)`,
        );
    }
    return reasons;
  },
};

/** sqlite:<file> (relative to the working directory) or a postgres:// URL. */
export const databaseUrl: Parser<DatabaseTarget> = {
  parse: (raw, cwd) => {
    if (/^postgres(ql)?:\/\//.test(raw)) {
      try {
        new URL(raw);
        return { engine: "postgres", url: raw };
      } catch {
        return new Refusal("must be a valid PostgreSQL URL such as postgres://postgres@127.0.0.1:5432/switchboard");
      }
    }
    if (!raw.startsWith("sqlite:")) return new Refusal("must start with sqlite: or postgres://");
    const file = raw.slice("sqlite:".length).replace(/^\/\/(?=\/)/, "");
    if (file === "") return new Refusal("needs a file path, e.g. sqlite:/var/lib/switchboard/main.db");
    return { engine: "sqlite", file: file === ":memory:" ? file : path.resolve(cwd, file) };
  },
};

/**
 * First path segments the API families and the console use: a short-link path under one would
 * shadow their routes or pages (or they its links), so it is refused at start.
 */
export const RESERVED_PATH_SEGMENTS: ReadonlySet<string> = new Set([
  "api",
  "admin",
  "console",
  "httpapi",
  "docs",
  "metrics",
  "healthz",
  "readyz",
  "webhooks",
  "email",
  "voice",
  "carriers",
  "assets",
  "bulk",
  "contacts",
  "credits",
  "inbound",
  "messages",
  "operator",
  "refusals",
  "registrations",
  "send",
  "settings",
  "subaccounts",
  "templates",
]);

/** SHORT_LINK_BASE: an http(s) URL with a path of its own (`https://go.example.in/l`), kept without its trailing `/`. */
export const shortLinkBase: Parser<{ url: string; path: string; host: string }> = {
  parse: (raw) => {
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      return new Refusal("must be an http(s) URL with a path, such as https://go.example.in/l");
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return new Refusal("must be an http or https URL");
    if (parsed.search !== "" || parsed.hash !== "" || parsed.username !== "") {
      return new Refusal("must have no query, fragment or user, such as https://go.example.in/l");
    }
    const path = parsed.pathname.replace(/\/+$/, "");
    const first = path.split("/")[1]?.toLowerCase() ?? "";
    if (path === "") {
      return new Refusal(
        "needs a path of its own (https://go.example.in/l): at / its links would collide with the console's pages",
      );
    }
    if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(path)) return new Refusal("must have a plain path (letters, digits, . _ ~ -)");
    if (RESERVED_PATH_SEGMENTS.has(first)) {
      return new Refusal(
        `has the path ${path}, which collides with the console's or the API's routes under /${first}; choose another, such as /l`,
      );
    }
    return { url: `${parsed.origin}${path}`, path, host: parsed.host };
  },
};
