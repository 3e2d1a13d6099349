// The shapes every answer shares, as schemas: the envelopes, a page's `meta`, times, credits and
// nullable values. Fastify serializes the answers with them (fast-json-stringify, which writes
// only the fields a schema lists, required ones first) and the OpenAPI document shows them; the
// console types what it reads with them. So this file, and every `*-schemas.ts` built on it,
// imports nothing but typebox and other such files: browser code can import it.
// A schema with a `title` is a named component of the OpenAPI document (openapi.ts).
import { type TSchema, Type } from "typebox";
import { WALLETS, type Wallet } from "../core/wallets.js";

/** `type: [T, "null"]` rather than `anyOf`, which fast-json-stringify can only write by trying each branch. */
export const NullableString = (options: { description?: string } = {}) =>
  Type.Unsafe<string | null>({ type: ["string", "null"], ...options });
export const NullableInteger = (options: { description?: string } = {}) =>
  Type.Unsafe<number | null>({ type: ["integer", "null"], ...options });
export const NullableNumber = (options: { description?: string } = {}) =>
  Type.Unsafe<number | null>({ type: ["number", "null"], ...options });

/** One of a few words, written as a string (an `anyOf` of literals would be tried branch by branch). */
export const OneOf = <const T extends readonly string[]>(values: T, options: { description?: string } = {}) =>
  Type.Unsafe<T[number]>({ type: "string", enum: [...values], ...options });

/**
 * An object whose fields are not ours to list (a webhook's payload, a carrier's definition):
 * written as given, every field, typed as a record.
 */
export const OpenObject = (options: { description?: string } = {}) =>
  Type.Unsafe<Record<string, unknown>>({ type: "object", properties: {}, additionalProperties: true, ...options });

/** An ISO 8601 UTC time with second precision, e.g. 2026-11-22T07:53:48Z. */
export const Time = Type.String({ format: "date-time" });
export const NullableTime = () => Type.Unsafe<string | null>({ type: ["string", "null"], format: "date-time" });

/** Credits as a number of credits (the gateway stores milli-credits: at most three decimals). */
export const Credits = Type.Number();

type WalletCredits = Record<Wallet, typeof Credits>;

/** Every wallet of an account, in credits. */
export const Wallets = Type.Object(Object.fromEntries(WALLETS.map((wallet) => [wallet, Credits])) as WalletCredits, {
  title: "Wallets",
  description: "Every wallet of the account, in credits: sms, international, whatsapp, email, voice.",
});

export const PageMeta = Type.Object(
  {
    page: Type.Integer({ minimum: 1 }),
    per_page: Type.Integer({ minimum: 1 }),
    total: Type.Integer({ minimum: 0 }),
    last_page: Type.Integer({ minimum: 1 }),
  },
  { title: "PageMeta" },
);

/** The envelope of the SMS calls: `{ success: true, message, data }`. */
export function smsAnswer<T extends TSchema>(data: T) {
  return Type.Object({ success: Type.Literal(true), message: Type.String(), data });
}

/** The envelope of the resource calls (and of every operator call): `{ status: "success", data }`. */
export function resourceAnswer<T extends TSchema>(data: T) {
  return Type.Object({ status: Type.Literal("success"), data });
}

/** A page of a list: `{ status: "success", data: [item…], meta }`, and `beside`'s fields when given. */
export function pageAnswer<T extends TSchema, B extends Record<string, TSchema> = Record<never, never>>(
  item: T,
  beside?: B,
) {
  return Type.Object({ status: Type.Literal("success"), data: Type.Array(item), meta: PageMeta, ...(beside as B) });
}

/**
 * Fields the OpenAPI document lists as required although the route's schema lets them be absent:
 * the send fields, whose absence the SMS rules answer with a code of their own (`missing_sender_id`,
 * -4) rather than the schema's 400 `invalid_request`.
 */
export const DOCUMENTED_REQUIRED = "x-documented-required";

export function requiredInDocument<T extends object>(schema: T, names: readonly string[]): T {
  return { ...schema, [DOCUMENTED_REQUIRED]: names };
}
