// Routes' schemas compile at their first use, not at start (decision 0138): a gateway started with
// every schema compiled at once (`schemasAtStart`) proves that each of them compiles, as the
// lazy start no longer does; and the lazy compilers compile on the first call, once.
import Fastify from "fastify";
import { Type } from "typebox";
import { expect, it } from "vitest";
import { createLogger, startGateway } from "../../src/app/gateway.js";
import { compileSerializer, compileSerializerNow } from "../../src/app/serializers.js";
import { compileValidator, compileValidatorNow } from "../../src/app/validators.js";
import { systemClock } from "../../src/base/core/clock.js";
import { createTestDatabase } from "../helpers/engines.js";
import { testConfig } from "../helpers/gateway.js";

/** A response schema fast-json-stringify cannot build: its reference leads nowhere. */
const BROKEN_ANSWER = { type: "object", properties: { a: { $ref: "#/definitions/missing" } } };

it("compiles every route's request and response schemas when asked to at start", { timeout: 60_000 }, async () => {
  const db = await createTestDatabase("sqlite");
  try {
    const gateway = await startGateway({
      config: testConfig(db),
      roles: ["api", "worker"],
      clock: systemClock,
      store: db.store,
      logger: createLogger({ logLevel: "silent" }),
      schemasAtStart: true,
    });
    await gateway.stop();
  } finally {
    await db.drop();
  }
});

it("builds a response schema at its first answer, and refuses a broken one then", () => {
  const route = { schema: BROKEN_ANSWER, method: "GET", url: "/broken", httpStatus: "200" };
  expect(() => compileSerializerNow(route)).toThrow(/missing/);
  const lazy = compileSerializer(route);
  expect(() => lazy({ a: 1 })).toThrow(/missing/);

  const good = compileSerializer({ ...route, schema: { type: "object", properties: { a: { type: "integer" } } } });
  expect(good({ a: 1, b: 2 })).toBe('{"a":1}');
  expect(good({ a: 3 })).toBe('{"a":3}');
  // Error answers are written as built, by JSON.stringify, lazily or not.
  expect(compileSerializer({ ...route, httpStatus: "422" })).toBe(JSON.stringify);
});

it("checks a request with the validator compiled at its first call, as at start", () => {
  const route = {
    schema: Type.Object({ n: Type.Integer() }),
    method: "GET",
    url: "/v",
    httpPart: "querystring",
  };
  const now = compileValidatorNow(route);
  const lazy = compileValidator(route);
  for (const input of [{ n: "7" }, { n: "x" }, {}]) {
    const a = now(input) as { value?: unknown; error?: unknown };
    const b = lazy(input) as { value?: unknown; error?: unknown };
    expect(b.value).toEqual(a.value);
    expect(b.error === undefined).toBe(a.error === undefined);
  }
  expect((lazy({ n: "7" }) as { value: unknown }).value).toEqual({ n: 7 });
});

it("answers through a lazily compiled schema in a Fastify server as it did compiled at start", async () => {
  for (const lazily of [true, false]) {
    const app = Fastify();
    app.setValidatorCompiler(lazily ? compileValidator : compileValidatorNow);
    app.setSerializerCompiler(lazily ? compileSerializer : compileSerializerNow);
    app.get(
      "/n",
      {
        schema: {
          querystring: Type.Object({ n: Type.Integer() }),
          response: { 200: { type: "object", properties: { twice: { type: "integer" } } } },
        },
      },
      async (request) => ({ twice: (request.query as { n: number }).n * 2, dropped: true }),
    );
    const ok = await app.inject({ url: "/n?n=21" });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toBe('{"twice":42}');
    const bad = await app.inject({ url: "/n?n=x" });
    expect(bad.statusCode).toBe(400);
    await app.close();
  }
});
