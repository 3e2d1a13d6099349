// Response serializers (fast-json-stringify), compiled once per distinct schema in the process:
// every v2 route carries the same error answers, and a test process starts many gateways, so
// compiling per route and per gateway would cost a quarter of a second at every start.
// Refusals are written as they were built (http-errors.ts), by JSON.stringify: their schemas
// document them, and their details vary (field, retry_after, an upstream's error), which a
// schema would write in its own order, unlike the refusals of the routes without one.
// `compileSerializer` builds at the answer's first use, not at start (decision 0138);
// `compileSerializerNow` at start (the test that every schema compiles).

import build from "fast-json-stringify";
import type { FastifySerializerCompiler } from "fastify/types/schema.js";

type Serialize = (data: unknown) => string;

const compiled = new Map<string, Serialize>();

/** Refusals (4xx, 5xx) are written by JSON.stringify, as built (above). */
const isRefusal = (httpStatus: string | undefined) => /^[45]/.test(String(httpStatus));

function compiledFor(schema: unknown): Serialize {
  const key = JSON.stringify(schema);
  let serialize = compiled.get(key);
  if (!serialize) {
    serialize = build(schema as Parameters<typeof build>[0]) as Serialize;
    compiled.set(key, serialize);
  }
  return serialize;
}

export const compileSerializerNow: FastifySerializerCompiler<unknown> = ({ schema, httpStatus }) =>
  isRefusal(httpStatus) ? JSON.stringify : compiledFor(schema);

export const compileSerializer: FastifySerializerCompiler<unknown> = ({ schema, httpStatus }) => {
  if (isRefusal(httpStatus)) return JSON.stringify;
  let serialize: Serialize | undefined;
  return (data: unknown) => {
    serialize ??= compiledFor(schema);
    return serialize(data);
  };
};
