// Response serializers (fast-json-stringify), compiled once per distinct schema in the process:
// every v2 route carries the same error answers, and a test process starts many gateways, so
// compiling per route and per gateway would cost a quarter of a second at every start.
// Refusals are written as they were built (http-errors.ts), by JSON.stringify: their schemas
// document them, and their details vary (field, retry_after, an upstream's error), which a
// schema would write in its own order, unlike the refusals of the routes without one.

import build from "fast-json-stringify";
import type { FastifySerializerCompiler } from "fastify/types/schema.js";

const compiled = new Map<string, (data: unknown) => string>();

export const compileSerializer: FastifySerializerCompiler<unknown> = ({ schema, httpStatus }) => {
  if (/^[45]/.test(String(httpStatus))) return JSON.stringify;
  const key = JSON.stringify(schema);
  let serialize = compiled.get(key);
  if (!serialize) {
    serialize = build(schema as Parameters<typeof build>[0]) as (data: unknown) => string;
    compiled.set(key, serialize);
  }
  return serialize;
};
