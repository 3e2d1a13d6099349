// Fuzzing the legacy HTTP SMS family and the XML API: query strings and forms built from valid
// calls with fields mutated, dropped and added, and raw query strings; XML documents mutated
// and generated. Every refusal is a negative code in plain text and writes nothing; the lists
// (templates, mis) answer a JSON array served as JSON.
import fc from "fast-check";
import { encodeForm, fieldValue, mutated, paramsOf, rawQuery, requestTarget } from "./generators.js";
import { describeFuzzTogether, fuzzParameters, sendCase, useFuzzSuite } from "./harness.js";

const LEGACY_PATHS = [
  "/api/secure_api/httpapi/send",
  "/httpapi/send",
  "/api/getcredits",
  "/httpapi/dlr",
  "/httpapi/mis",
  "/httpapi/templates",
  "/httpapi/addtemplate",
  "/httpapi/accountstatus",
];

function xmlEscape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

describeFuzzTogether("fuzz: legacy HTTP and XML", (engine) => {
  const { property } = useFuzzSuite(engine);

  property(
    "answers every generated legacy call with a negative code or a result, writing nothing on refusal",
    "legacy HTTP",
    async ({ t, client, outcomes }) => {
      const credentials = fc.oneof(
        fc.constant({ api_key: t.account.apiKey }),
        fc.constant({ username: t.account.username, password: t.account.password }),
        paramsOf({ username: t.account.username, password: "wrong-password" }),
        paramsOf({ apikey: t.account.apiKey }),
      );
      const call = paramsOf({
        sender_id: "SWBRD",
        mobile: "9876543210",
        message: "Hello from the fuzzer",
        route: "T",
        type: "1",
        schedule: "2030-01-01 10:00:00",
        broadcastid: "1_20261124_1",
        limit: "10",
        offset: "0",
        template_name: "t1",
        template_message: "Your code is {#var#}",
        dlt_template_id: "1107160000000000001",
      });
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...LEGACY_PATHS),
          fc.constantFrom("GET", "POST"),
          credentials,
          call,
          fc.option(rawQuery, { nil: undefined }),
          async (path, method, auth, params, raw) => {
            const form = raw ?? encodeForm({ ...params, ...auth });
            if (method === "GET") await sendCase(t, client, "legacy", "GET", requestTarget(path, form), { outcomes });
            else {
              await sendCase(t, client, "legacy", "POST", path, {
                headers: { "content-type": "application/x-www-form-urlencoded" },
                body: form,
                outcomes,
              });
            }
          },
        ),
        fuzzParameters(),
      );
    },
  );

  property(
    "answers every generated XML document with a negative code or a broadcast id, writing nothing on refusal",
    "XML API",
    async ({ t, client, outcomes }) => {
      const message = fc
        .tuple(mutated("9876543210"), mutated("Hello"))
        .map(([pno, msg]) => `<message pno="${xmlEscape(pno)}" msg="${xmlEscape(msg)}"/>`);
      const valid = fc
        .tuple(fc.array(message, { minLength: 0, maxLength: 4 }), mutated("SWBRD"), fc.boolean())
        .map(
          ([messages, sender, byKey]) =>
            `<?xml version="1.0"?><pushsms>${
              byKey
                ? `<apikey>${t.account.apiKey}</apikey>`
                : `<username>${t.account.username}</username><password>${xmlEscape(t.account.password)}</password>`
            }<senderid>${xmlEscape(sender)}</senderid><messages>${messages.join("")}</messages></pushsms>`,
        );
      const document = fc.oneof(
        { weight: 3, arbitrary: valid },
        // A valid document cut, or with a piece of markup or text spliced in.
        {
          weight: 3,
          arbitrary: fc
            .tuple(
              valid,
              fc.nat(),
              fc.constantFrom(
                "<",
                ">",
                "&",
                "]]>",
                '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>',
                "&e;",
                "<a>",
                "</pushsms>",
                "\u0000",
              ),
            )
            .map(([doc, at, piece]) => {
              const cut = at % (doc.length + 1);
              return `${doc.slice(0, cut)}${piece}${doc.slice(cut)}`;
            }),
        },
        { weight: 1, arbitrary: fieldValue },
      );
      await fc.assert(
        fc.asyncProperty(document, fc.constantFrom("GET", "POST"), async (xml, method) => {
          const form = encodeForm({ xmlstring: xml });
          if (method === "GET")
            await sendCase(t, client, "legacy", "GET", requestTarget("/xmlapi/send", form), { outcomes });
          else {
            await sendCase(t, client, "legacy", "POST", "/xmlapi/send", {
              headers: { "content-type": "application/x-www-form-urlencoded" },
              body: form,
              outcomes,
            });
          }
        }),
        fuzzParameters(),
      );
    },
  );
});
