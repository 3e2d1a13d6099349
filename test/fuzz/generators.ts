// The fuzz suite's generators: nasty strings, field values, valid calls with fields mutated,
// and the encodings that carry them into a query string, a form or a request line.
import fc from "fast-check";

/** Values that broke parsers before, or might: prototype names, control characters, encodings, sizes. */
export const NASTY_STRINGS = [
  "",
  " ",
  "constructor",
  "__proto__",
  "toString",
  "hasOwnProperty",
  "{{constructor}}",
  "{{{__proto__}}}",
  "{#var#}",
  "{{1}}",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the carriers file's ${NAME} syntax, meant literally
  "${constructor}",
  "\u0000",
  "a\r\nBcc: x@evil.example",
  "\u2028",
  "%",
  "%00",
  "%zz",
  "-1",
  "0",
  "1e309",
  "NaN",
  "Infinity",
  "9876543210",
  "+919876543210",
  "09876543210",
  "null",
  "[]",
  "{}",
  "true",
  "😀",
  "\uD800",
  "&#0;",
  "&amp;",
  "<![CDATA[",
  "' OR 1=1 --",
  "../../etc/passwd",
  "x".repeat(5_000),
  "9".repeat(400),
];

/** A field value: often one of the nasty strings, otherwise any text (full Unicode, lone surrogates included). */
export const fieldValue = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme-ascii", maxLength: 200 }) },
);

/** A valid value or a mutated one: `valid` kept, changed by a nasty value, cut, or doubled. */
export function mutated(valid: string): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(valid) },
    { weight: 2, arbitrary: fieldValue },
    { weight: 1, arbitrary: fc.nat({ max: valid.length }).map((cut) => valid.slice(0, cut)) },
    { weight: 1, arbitrary: fieldValue.map((extra) => `${valid}${extra}`) },
  );
}

/**
 * The given fields with up to three of them changed (dropped, replaced by a nasty value, cut or
 * extended) and up to three unknown fields added: most cases stay close enough to a valid call
 * to reach the checks behind the first one.
 */
export function paramsOf(valid: Record<string, string>): fc.Arbitrary<Record<string, string>> {
  const keys = Object.keys(valid);
  const change = (value: string) =>
    fc.oneof(
      { weight: 1, arbitrary: fc.constant(undefined) },
      { weight: 3, arbitrary: mutated(value).filter((v) => v !== value) },
    );
  const changes = fc.record(
    Object.fromEntries(keys.map((key) => [key, change(valid[key] as string)])) as Record<
      string,
      fc.Arbitrary<string | undefined>
    >,
  );
  const unknown = fc.dictionary(fc.constantFrom(...NASTY_STRINGS.slice(0, 12), "x", "a[b]", "a.b"), fieldValue, {
    maxKeys: 3,
  });
  return fc
    .tuple(fc.shuffledSubarray(keys, { maxLength: Math.min(3, keys.length) }), changes, unknown)
    .map(([chosen, changed, extra]) => {
      const out: Record<string, string> = { ...extra, ...valid };
      for (const key of chosen) {
        const value = changed[key];
        if (value === undefined) delete out[key];
        else out[key] = value;
      }
      return out;
    });
}

/** A form or query string. */
export function encodeForm(params: Record<string, string>): string {
  return new URLSearchParams(params).toString();
}

/** Each UTF-8 byte of the characters `unsafe` matches as %XX (a lone surrogate as U+FFFD's bytes). */
export function percentEncode(text: string, unsafe = /[^A-Za-z0-9_.~-]/gu): string {
  return text.replace(unsafe, (c) =>
    [...Buffer.from(c)].map((byte) => `%${byte.toString(16).padStart(2, "0")}`).join(""),
  );
}

/** A request target as the request line can carry it: bytes outside printable ASCII percent-encoded. */
export function requestTarget(path: string, query: string): string {
  const safe = percentEncode(query, /[^\x21-\x7e]/gu);
  return safe ? `${path}?${safe}` : path;
}

export const rawQuery = fc.oneof(
  fc.string({ unit: "grapheme-ascii", maxLength: 200 }),
  fc.constantFrom("%", "%%", "a=%E0%A4", "a=1&a=2&a[]=3", "=&=&", "a[__proto__][x]=1", "__proto__[x]=1"),
);
