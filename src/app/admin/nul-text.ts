// The operator API takes no text with U+0000 (NUL): PostgreSQL refuses it in text (22021), SQLite
// stores it, so a NUL in an account's note, a key's name or a path's username answered 200 on one
// engine and an unnamed 400 on the other (decision 0024, its addenda). One check of every route's path,
// query and JSON body, naming the field, before any handler reads them.
import type { FastifyRequest } from "fastify";
import { GatewayError } from "../../base/core/errors.js";

const NUL = "\u0000";

/** `where` joined to a JSON member as the docs write a field: `templates[0].content`. */
function inside(where: string, key: string | number): string {
  if (typeof key === "number") return `${where}[${key}]`;
  return where ? `${where}.${key}` : key;
}

/** The first field of a parsed JSON value holding a NUL (in a value or a member's name), or undefined. */
function nulField(value: unknown, where: string): string | undefined {
  if (typeof value === "string") return value.includes(NUL) ? where : undefined;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = nulField(item, inside(where, index));
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  // A parsed JSON object only: a streamed body (text/csv) is the route's own to read.
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    if (key.includes(NUL)) return inside(where, key);
    const found = nulField(item, inside(where, key));
    if (found !== undefined) return found;
  }
  return undefined;
}

function refused(message: string, field: string): GatewayError {
  return new GatewayError("invalid_request", `${message} cannot contain U+0000 (NUL).`, { field });
}

/** Refuses a path parameter, query parameter or JSON body field holding a NUL, naming it (400 invalid_request). */
export function refuseNulText(request: FastifyRequest): void {
  for (const [name, value] of Object.entries((request.params ?? {}) as Record<string, unknown>)) {
    if (nulField(value, name) !== undefined) throw refused(`The path's "${name}"`, name);
  }
  for (const [name, value] of Object.entries((request.query ?? {}) as Record<string, unknown>)) {
    if (name.includes(NUL) || nulField(value, name) !== undefined) {
      throw refused(`Query parameter "${name.replaceAll(NUL, "\\u0000")}"`, name);
    }
  }
  const field = typeof request.body === "string" ? undefined : nulField(request.body, "");
  if (field !== undefined) throw refused(field ? `Field "${field}"` : "The body", field);
}
