// Fuzzing the contacts upload: CSV bodies generated line by line (numbers, names, quotes,
// separators, BOMs, blank and over-long lines, cut quotes) and JSON lists of any shape. A
// refusal is the v2 envelope and writes nothing; an accepted upload reports exact counts.
import fc from "fast-check";
import { beforeAll, expect } from "vitest";
import { fieldValue, mutated, percentEncode } from "./generators.js";
import { accountState, describeFuzzTogether, fuzzParameters, sendCase, useFuzzSuite } from "./harness.js";

describeFuzzTogether("fuzz: contact uploads", (engine) => {
  const { gateway, property } = useFuzzSuite(engine);
  let group = 0;
  beforeAll(async () => {
    const t = gateway();
    const created = await fetch(`${t.url}/api/v2/groups`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.account.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Fuzzed" }),
    });
    group = ((await created.json()) as { data: { id: number } }).data.id;
  });

  property(
    "answers every generated CSV or JSON upload with a report or the envelope, writing nothing on refusal",
    "contacts upload",
    async ({ t, client, outcomes }) => {
      const field = fc.oneof(
        { weight: 4, arbitrary: mutated("9876543210") },
        { weight: 2, arbitrary: fc.integer({ min: 6_000_000_000, max: 9_999_999_999 }).map(String) },
        {
          weight: 2,
          arbitrary: fc.constantFrom(
            "Asha",
            '"Sharma, Ravi"',
            '"He said ""hi"""',
            '"multi\nline"',
            "\uFEFFname",
            "number",
          ),
        },
        { weight: 1, arbitrary: fieldValue },
        { weight: 1, arbitrary: fc.constantFrom('"unclosed', ",".repeat(1_200), "9".repeat(20_000)) },
      );
      const line = fc
        .array(field, { minLength: 0, maxLength: 4 })
        .chain((fields) => fc.constantFrom(",", ";", "\t").map((separator) => fields.join(separator)));
      const csv = fc
        .tuple(fc.array(line, { maxLength: 30 }), fc.constantFrom("\n", "\r\n"))
        .map(([lines, end]) => lines.join(end));
      const json = fc.oneof(
        fc.array(fc.oneof(mutated("9876543210"), fc.record({ number: mutated("9876543211"), name: fieldValue })), {
          maxLength: 20,
        }),
        fc.jsonValue({ maxDepth: 3 }),
      );
      const groupId = fc.oneof(
        { weight: 8, arbitrary: fc.constant(String(group)) },
        { weight: 1, arbitrary: mutated(String(group)) },
      );
      await fc.assert(
        fc.asyncProperty(fc.boolean(), csv, json, groupId, async (asCsv, csvText, jsonValue, id) => {
          const before = await accountState(t, t.account.id);
          const answer = await sendCase(t, client, "v2", "POST", `/api/v2/groups/${percentEncode(id)}/contacts`, {
            headers: {
              authorization: `Bearer ${t.account.apiKey}`,
              "content-type": asCsv ? "text/csv" : "application/json",
            },
            body: asCsv ? csvText : JSON.stringify(jsonValue),
            outcomes,
          });
          if (answer.status === 200) {
            const report = JSON.parse(answer.body).data;
            expect(report.received).toBe(report.added + report.duplicates + report.invalid);
            const after = await accountState(t, t.account.id);
            expect(Number(after.contacts) - Number(before.contacts)).toBe(report.added);
          }
        }),
        fuzzParameters(),
      );
    },
  );
});
