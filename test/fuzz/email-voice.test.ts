// Fuzzing the email family (query, form and multipart: fields mutated, files with and without
// names, boundaries missing, bodies cut) and the voice family (query, form, JSON). Every
// refusal is a negative code in plain text and writes nothing; a refused multipart body
// leaves the keep-alive connection usable for the next case.
import fc from "fast-check";
import { beforeAll } from "vitest";
import { addEmailDomain } from "../../src/channels/email/domains.js";
import { approveCallerIdFor } from "../../src/channels/voice/index.js";
import { cliActor } from "../../src/domain/audit/index.js";
import { multipartBody } from "../helpers/raw-http.js";
import { encodeForm, fieldValue, paramsOf, rawQuery, requestTarget } from "./generators.js";
import { describeFuzzTogether, fuzzParameters, sendCase, useFuzzSuite } from "./harness.js";

const EMAIL_PATHS = ["/httpemailapi/v1/send", "/httpemailapiv2/send", "/httpemailapi/send"];
const CALLER = "+918047110000";

describeFuzzTogether("fuzz: email and voice", (engine) => {
  const { gateway, property } = useFuzzSuite(engine);
  beforeAll(async () => {
    const t = gateway();
    await addEmailDomain(t.db.store.db, t.clock, t.account.id, "shop.example.com", { approve: true });
    await approveCallerIdFor({ store: t.db.store, clock: t.clock, actor: cliActor() }, t.account.username, CALLER);
  });

  property(
    "answers every generated email send with -7, -11 or a broadcast id, writing nothing on refusal",
    "email",
    async ({ t, client, outcomes }) => {
      const fields = paramsOf({
        api_key: t.account.apiKey,
        from: "Shop <news@shop.example.com>",
        to: "asha@example.org, ravi@example.org",
        cc: "meera@example.org",
        replyto: "help@shop.example.com",
        subject: "Order {{name}}",
        html: "<p>Hi {{name}} {{{constructor}}}</p>",
        defaultplaceholders: '{"name":"Asha"}',
        trackopens: "true",
        sendat: "2030-01-01 10:00:00",
      });
      const file = fc.record({
        field: fc.constantFrom("attachment", "attachment1", "photo", "__proto__"),
        filename: fc.option(fc.constantFrom("a.pdf", "", "../../x", 'na"me.txt', "😀.txt"), { nil: undefined }),
        content: fc.oneof(fc.constant(""), fc.string({ maxLength: 300 }), fc.constant("x".repeat(200_000))),
        type: fc.constantFrom("application/pdf", "text/plain", "", 'x/y; a="b"'),
      });
      const request = fc.oneof(
        fc.record({ kind: fc.constant("query" as const), fields, raw: fc.option(rawQuery, { nil: undefined }) }),
        fc.record({ kind: fc.constant("form" as const), fields }),
        fc.record({
          kind: fc.constant("multipart" as const),
          fields,
          files: fc.array(file, { maxLength: 12 }),
          // How the body is spoiled, if at all: cut at a point, boundary left out of the header.
          cut: fc.option(fc.nat(), { nil: undefined }),
          boundary: fc.constantFrom("ok", "missing", "empty", "quoted"),
        }),
      );
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...EMAIL_PATHS), request, async (path, req) => {
          if (req.kind === "query") {
            await sendCase(t, client, "email", "GET", requestTarget(path, req.raw ?? encodeForm(req.fields)), {
              outcomes,
            });
            return;
          }
          if (req.kind === "form") {
            await sendCase(t, client, "email", "POST", path, {
              headers: { "content-type": "application/x-www-form-urlencoded" },
              body: encodeForm(req.fields),
              outcomes,
            });
            return;
          }
          const built = multipartBody(
            Object.fromEntries(Object.entries(req.fields).map(([k, v]) => [k.replace(/["\r\n]/g, ""), v])),
            req.files.map((f) => ({ ...f, filename: f.filename?.replace(/["\r\n]/g, "") })),
            "fuzzboundary",
          );
          const body = req.cut === undefined ? built.body : built.body.subarray(0, req.cut % (built.body.length + 1));
          const type = {
            ok: built.contentType,
            missing: "multipart/form-data",
            empty: "multipart/form-data; boundary=",
            quoted: 'multipart/form-data; boundary="fuzzboundary"',
          }[req.boundary];
          await sendCase(t, client, "email", "POST", path, { headers: { "content-type": type }, body, outcomes });
        }),
        fuzzParameters(),
      );
    },
  );

  property(
    "answers every generated voice call with a negative code or a broadcast id, writing nothing on refusal",
    "voice",
    async ({ t, client, outcomes }) => {
      const params = paramsOf({
        apikey: t.account.apiKey,
        from: CALLER,
        to: "9876543210",
        text: "Your code is 4 2 1 {#var#}",
      });
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom("query", "form", "json", "raw-json"),
          params,
          fieldValue,
          async (kind, fields, raw) => {
            if (kind === "query") {
              await sendCase(t, client, "voice", "GET", requestTarget("/voicecall/v1/send", encodeForm(fields)), {
                outcomes,
              });
            } else if (kind === "form") {
              await sendCase(t, client, "voice", "POST", "/voicecall/v1/post/send", {
                headers: { "content-type": "application/x-www-form-urlencoded" },
                body: encodeForm(fields),
                outcomes,
              });
            } else {
              await sendCase(t, client, "voice", "POST", "/voicecall/v1/jpost/send", {
                headers: { "content-type": "application/json" },
                body: kind === "json" ? JSON.stringify(fields) : raw,
                outcomes,
              });
            }
          },
        ),
        fuzzParameters(),
      );
    },
  );
});
