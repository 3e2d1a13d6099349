// The parameters of the form families (legacy SMS, XML, voice, email): a query string and a body
// (a form, multipart fields, or a JSON object) merged into one value per name. Names are
// case-insensitive; the body's value wins over the query's. A name given more than once in one
// source (`message=a&message=b`, `Message` beside `message`, a JSON array) is read by one rule in
// every family: a list parameter (the legacy `phonenumber`, the email `to`, `cc`, `bcc`, which
// the spec writes comma-separated) is the comma list of all its values; any other name given
// again with the same value is that value; with another value, or as a JSON array, the request
// is ambiguous and the family refuses it in its own dialect, naming the parameter. Keeping one
// of the values would send a text, to a number or from a sender the client may not have meant,
// and charge for it, while the answer says success.

/** One source of parameters: the query, or the body (`json` when it was a JSON object). */
export interface ParamSource {
  values: unknown;
  json?: boolean;
}

export interface GatheredParams {
  /** Each name (lower case) with its one value. */
  params: Record<string, string>;
  /** The names given more than once with different values, or as a JSON array where one value is read. */
  ambiguous: string[];
}

/** A value as form text: strings, and JSON's numbers and booleans (`{"to": 9876543210}`); undefined for objects and null. */
function asText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
}

/** The query and the body merged by the rule above; `lists` names the list parameters (lower case). */
export function gatherParams(sources: readonly ParamSource[], lists: ReadonlySet<string>): GatheredParams {
  // Without a prototype: a parameter named __proto__ or constructor is a name like any other.
  const params: Record<string, string> = Object.create(null);
  const ambiguous = new Set<string>();
  for (const { values: bag, json } of sources) {
    if (bag === null || typeof bag !== "object" || Array.isArray(bag)) continue;
    const given = new Map<string, { values: string[]; array: boolean }>();
    for (const [name, value] of Object.entries(bag as Record<string, unknown>)) {
      const lower = name.toLowerCase();
      const entry = given.get(lower) ?? { values: [], array: false };
      const items = Array.isArray(value) ? value : [value];
      for (const item of items) {
        const text = asText(item);
        if (text !== undefined) entry.values.push(text);
      }
      entry.array ||= Boolean(json) && Array.isArray(value);
      given.set(lower, entry);
    }
    for (const [name, { values, array }] of given) {
      if (values.length === 0) continue;
      if (lists.has(name)) {
        params[name] = values.join(",");
        continue;
      }
      const first = values[0] as string;
      if (array || values.some((value) => value !== first)) {
        ambiguous.add(name);
        // The query's value, if any, must not stand in for a body that is refused.
        delete params[name];
        continue;
      }
      ambiguous.delete(name);
      params[name] = first;
    }
  }
  return { params, ambiguous: [...ambiguous] };
}

/** The first name of `ambiguous` among `names` (lower case), if any. */
export function ambiguousAmong(ambiguous: readonly string[], names: ReadonlySet<string>): string | undefined {
  return ambiguous.find((name) => names.has(name));
}

/** Why a parameter is refused, for X-Error-Message and the log of refusals. */
export function ambiguityReason(name: string): string {
  const shown = JSON.stringify(name.slice(0, 40));
  return `Parameter ${shown} is given more than once with different values (or as a list): give it once. Nothing was sent or changed.`;
}

/** Whether the request's body is JSON (by its Content-Type): there an array is a list, never a repeat. */
export function isJsonBody(contentType: string | undefined): boolean {
  return /^\s*application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(contentType ?? "");
}
