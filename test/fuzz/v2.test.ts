// Fuzzing the v2 JSON family: every route the server documents in its OpenAPI document, with
// path parameters, query strings and bodies built from valid requests and mutated, plus JSON
// of any shape, cut JSON and bodies of other types. Every refusal is the JSON envelope with
// error.code, and writes nothing.
import fc from "fast-check";
import { expect } from "vitest";
import { encodeForm, fieldValue, mutated, paramsOf, percentEncode, rawQuery, requestTarget } from "./generators.js";
import { describeFuzz, fuzzParameters, sendCase, useFuzzSuite } from "./harness.js";

/** Valid-looking bodies of the sending routes; other routes get generated JSON. */
const SEND = {
  sender_id: "SWBRD",
  recipient: "9876543210",
  message: "Hello {#var#}",
  route: "T",
  schedule_at: "2030-01-01 10:00:00",
};
const BODIES: Record<string, Record<string, unknown>> = {
  "/api/v2/sms/send": SEND,
  "/api/v2/sms/schedule": SEND,
  "/api/v2/sms/bulk": { ...SEND, recipients: ["9876543210", "9876543211"] },
  "/api/v2/whatsapp/send": {
    to: "919876543210",
    template: "hello_world",
    params: ["{{constructor}}"],
    language: "en_US",
  },
  "/api/v2/groups": { name: "Friends" },
  "/api/v2/email/templates": { name: "welcome", subject: "Hi {{name}}", html: "<p>{{{constructor}}}</p>" },
};

/** A JSON value for a body: the valid one with fields mutated, any JSON, or the valid text cut. */
function bodyFor(path: string): fc.Arbitrary<{ type: string; text: string }> {
  const valid = BODIES[path] ?? {};
  const fields = fc
    .tuple(
      paramsOf(
        Object.fromEntries(Object.entries(valid).filter(([, v]) => typeof v === "string")) as Record<string, string>,
      ),
      fc.dictionary(fc.constantFrom(...Object.keys(valid), "__proto__", "constructor"), fc.jsonValue({ maxDepth: 2 }), {
        maxKeys: 2,
      }),
    )
    .map(([strings, others]) => ({ ...valid, ...strings, ...others }));
  const json = fc.oneof(
    { weight: 4, arbitrary: fields.map((value) => JSON.stringify(value)) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)) },
    {
      weight: 1,
      arbitrary: fc.tuple(fields, fc.nat()).map(([value, at]) => {
        const text = JSON.stringify(value);
        return text.slice(0, at % (text.length + 1));
      }),
    },
    { weight: 1, arbitrary: fieldValue },
  );
  return fc.oneof(
    { weight: 6, arbitrary: json.map((text) => ({ type: "application/json", text })) },
    { weight: 1, arbitrary: json.map((text) => ({ type: "application/json; charset=utf-8", text })) },
    {
      weight: 1,
      arbitrary: paramsOf({ name: "x", message: "hi" }).map((p) => ({
        type: "application/x-www-form-urlencoded",
        text: encodeForm(p),
      })),
    },
  );
}

describeFuzz("fuzz: v2 JSON family", (engine) => {
  const { property } = useFuzzSuite(engine);

  property(
    "answers every generated call of every documented route in the envelope, writing nothing on refusal",
    "v2 JSON",
    async ({ t, client, outcomes }) => {
      const document = (await (await fetch(`${t.url}/api/v2/openapi.json`)).json()) as {
        paths: Record<string, Record<string, unknown>>;
      };
      const routes: Array<{ method: string; path: string }> = [];
      for (const [path, item] of Object.entries(document.paths)) {
        for (const method of Object.keys(item)) routes.push({ method: method.toUpperCase(), path });
      }
      expect(routes.length).toBeGreaterThan(20);
      const auth = fc.oneof(
        { weight: 6, arbitrary: fc.constant({ authorization: `Bearer ${t.account.apiKey}` }) },
        { weight: 1, arbitrary: fc.constant({ "x-api-key": t.account.apiKey }) },
        {
          weight: 1,
          arbitrary: mutated(`Bearer ${t.account.apiKey}`).map((v) => ({
            authorization: v.replace(/[^\x20-\x7e]/g, ""),
          })),
        },
      );
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...routes).chain((route) =>
            fc.record({
              route: fc.constant(route),
              ids: fc.array(mutated("1"), { minLength: 3, maxLength: 3 }),
              query: fc.oneof(
                paramsOf({ page: "1", per_page: "10", status: "delivered", limit: "5" }).map(encodeForm),
                rawQuery,
              ),
              body: bodyFor(route.path),
              auth,
            }),
          ),
          async ({ route, ids, query, body, auth }) => {
            let n = 0;
            const path = route.path.replace(/\{[^}]+\}/g, () => percentEncode(ids[n++ % ids.length] || "x"));
            const target = requestTarget(path, query);
            const withBody = route.method === "POST" || route.method === "PUT" || route.method === "PATCH";
            await sendCase(t, client, "v2", route.method, target, {
              headers: { ...auth, ...(withBody ? { "content-type": body.type } : {}) },
              ...(withBody ? { body: body.text } : {}),
              outcomes,
            });
          },
        ),
        fuzzParameters(),
      );
    },
  );
});
