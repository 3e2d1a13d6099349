// Characters no text field of the gateway takes, and the refusals that name them.
import { GatewayError } from "./errors.js";

/** U+0000: in no real message or name, and PostgreSQL text cannot store it. */
export const NUL = "\u0000";

/** Refuses `value` (a field of a request) if it holds U+0000: `what` says whose, e.g. "A template name". */
export function refuseNul(value: string | null | undefined, what: string, field: string): void {
  if (value?.includes(NUL)) throw new GatewayError("invalid_request", `${what} cannot contain U+0000.`, { field });
}

/**
 * The path (`message`, `recipients[2]`) of the first string in a parsed JSON value, key or
 * value, that is not well-formed Unicode (half a surrogate pair alone, a `\ud83d` escape without
 * its other half), or undefined. Such a string has no UTF-8 form: each
 * engine would store it replaced in its own way, so it is refused, not sent mangled.
 */
export function loneSurrogateAt(value: unknown, path = ""): string | undefined {
  if (typeof value === "string") return value.isWellFormed() ? undefined : path || "(body)";
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = loneSurrogateAt(value[index], `${path}[${index}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      const at = path ? `${path}.${key}` : key;
      if (!key.isWellFormed()) return at;
      const found = loneSurrogateAt(item, at);
      if (found) return found;
    }
  }
  return undefined;
}
