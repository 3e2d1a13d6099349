import { expect, it } from "vitest";
import { CONTACT_BATCH } from "../../../src/domain/contacts/contacts.js";
import { describeEnginesTogether } from "../../helpers/engines.js";
import { buildAccount, useTestGateway } from "../../helpers/gateway.js";
import { contactsOf, createGroup, expectError, postCsv, v2 } from "./helpers.js";

const BOM = "\uFEFF";

describeEnginesTogether("v2 contacts as CSV", (engine) => {
  const gateway = useTestGateway(engine);

  it("reads a messy file: BOM, header, quotes, CRLF, blank lines, prefixes, duplicates and bad lines by line number", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const group = await createGroup(t, account, "Messy");
    const seeded = await v2(t, account, "POST", `/groups/${group}/contacts`, [{ number: "9000000009", name: "Old" }]);
    expect(seeded.body.data.added).toBe(1);
    const csv = [
      `${BOM}Name,Mobile,City`,
      "Asha,9876543210,Pune",
      "",
      '"Sharma, Ravi","+91 98765 43211",Delhi',
      "Old name,09000000009,",
      "Eleven,09876543212",
      "Twelve,919876543213",
      "   ,   ",
      "Repeat,+919876543210",
      "Bad,12345",
      '"Multi',
      'line",9876543214',
      "Empty number,",
      '"He said ""hi""",9876543215',
      "Long,9876543216".replace("Long", "L".repeat(101)),
      "Semi;9876543217",
      "Tab\t9876543218",
      "",
    ].join("\r\n");
    const response = await postCsv(t, account, group, csv);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({
      status: "success",
      data: {
        group_id: group,
        received: 13,
        added: 8,
        duplicates: 2,
        invalid: 3,
        duplicate_entries: [
          { line: 5, number: "9000000009" },
          { line: 9, number: "9876543210" },
        ],
        invalid_entries: [
          { line: 10, value: "12345", reason: "invalid_number" },
          { line: 13, value: "", reason: "invalid_number" },
          { line: 15, value: "9876543216", reason: "invalid_name" },
        ],
      },
    });
    expect(await contactsOf(t, account, group)).toEqual([
      "9000000009 Old",
      "9876543210 Asha",
      "9876543211 Sharma, Ravi",
      "9876543212 Eleven",
      "9876543213 Twelve",
      "9876543214 Multi\r\nline",
      '9876543215 He said "hi"',
      "9876543217 Semi",
      "9876543218 Tab",
    ]);
  });

  it("without a header reads number then name; `;` and tab separate too; a 0-prefixed 11-digit number is fine", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const group = await createGroup(t, account, "Plain");
    const csv = "9876543210,Asha\n09876543211\n+919876543212;Ravi;ignored\n9876543213\tMeena\n\n\n919876543214,\n";
    const response = await postCsv(t, account, group, csv, "text/csv; charset=utf-8");
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toMatchObject({ received: 5, added: 5, duplicates: 0, invalid: 0 });
    expect(await contactsOf(t, account, group)).toEqual([
      "9876543210 Asha",
      "9876543211",
      "9876543212 Ravi",
      "9876543213 Meena",
      "9876543214",
    ]);

    // A header that names the columns in another order; application/csv is CSV too.
    const reordered = await createGroup(t, account, "Reordered");
    const named = await postCsv(t, account, reordered, "phone_number;full name\n9876543215;Kiran\n", "application/csv");
    expect(named.body.data).toMatchObject({ received: 1, added: 1 });
    expect(await contactsOf(t, account, reordered)).toEqual(["9876543215 Kiran"]);

    // A first line with digits is data, even if it is not a valid number.
    const noHeader = await createGroup(t, account, "No header");
    const bad = await postCsv(t, account, noHeader, "12345,first\n9876543216\n");
    expect(bad.body.data).toMatchObject({
      received: 2,
      added: 1,
      invalid: 1,
      invalid_entries: [{ line: 1, value: "12345", reason: "invalid_number" }],
    });

    // A file without a single entry is refused (upload-whole.test.ts).
    expectError(await postCsv(t, account, noHeader, ""), 400, "invalid_request");
    expectError(await postCsv(t, account, noHeader, `${BOM}number,name\r\n`), 400, "invalid_request");
  });

  it("streams a chunked upload; duplicates across chunks count exactly and the lists stop at 1,000", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const group = await createGroup(t, account, "Chunked");
    const lines: string[] = ["mobile"];
    for (let i = 0; i < 12_000; i += 1) lines.push(String(7_000_000_000 + (i % 10_000)));
    for (let i = 0; i < 1_500; i += 1) lines.push(`bad${i}`);
    const parts = function* () {
      for (let i = 0; i < lines.length; i += 997) yield `${lines.slice(i, i + 997).join("\n")}\n`;
    };
    const response = await postCsv(t, account, group, parts());
    expect(response.status, response.text).toBe(200);
    const data = response.body.data;
    expect(data).toMatchObject({ received: 13_500, added: 10_000, duplicates: 2_000, invalid: 1_500 });
    expect(data.duplicate_entries).toHaveLength(1_000);
    expect(data.duplicate_entries[0]).toEqual({ line: 10_002, number: "7000000000" });
    expect(data.duplicate_entries[999]).toEqual({ line: 11_001, number: "7000000999" });
    expect(data.invalid_entries).toHaveLength(1_000);
    expect(data.invalid_entries[0]).toEqual({ line: 12_002, value: "bad0", reason: "invalid_number" });
    expect(data.invalid_entries[999]).toEqual({ line: 13_001, value: "bad999", reason: "invalid_number" });
    const page = await v2(t, account, "GET", `/groups/${group}/contacts?per_page=1`);
    expect(page.body.meta.total).toBe(10_000);
  });

  it("stops at an unclosed quote with its line number, adding none of the file", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const group = await createGroup(t, account, "Broken");
    const small = await postCsv(t, account, group, '9876543210\n9876543211\n"9876543212\n9876543213\n');
    expectError(small, 400, "invalid_request");
    expect(small.body.message).toContain("line 3");
    expect(small.body.error.line).toBe(3);
    expect(await contactsOf(t, account, group)).toEqual([]);

    const good = Array.from({ length: CONTACT_BATCH + 100 }, (_, i) => String(8_000_000_000 + i));
    const large = await postCsv(t, account, group, `${good.join("\n")}\n"oops,no close\n9876543219\n`);
    expectError(large, 400, "invalid_request");
    expect(large.body.message).toContain(`line ${CONTACT_BATCH + 101}`);
    expect(large.body.message).toContain("No contact was added");
    expect(large.body.error.added).toBe(0);
    const page = await v2(t, account, "GET", `/groups/${group}/contacts?per_page=1`);
    expect(page.body.meta.total).toBe(0);

    const again = await postCsv(t, account, group, `${good.join("\n")}\n`);
    expect(again.body.data).toMatchObject({ added: CONTACT_BATCH + 100, duplicates: 0 });
  });

  it("refuses CSV to unknown groups and other accounts' groups with 404, and without a valid key with 401", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const stranger = await buildAccount(t);
    const group = await createGroup(t, account, "Mine");
    for (const id of ["999999", "abc", "0"]) {
      expectError(await postCsv(t, account, id, "9876543210\n"), 404, "not_found");
    }
    expectError(await postCsv(t, stranger, group, "9876543210\n"), 404, "not_found");
    const anonymous = await postCsv(t, { ...account, apiKey: "sb_not-a-key" }, group, "9876543210\n");
    expectError(anonymous, 401, "unauthorized");
    expect(await contactsOf(t, account, group)).toEqual([]);
  });

  it("takes a 200,000-line upload in one request with exact counts", { timeout: 60_000 }, async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const group = await createGroup(t, account, "Big");
    const lines = ["number,name"];
    for (let i = 0; i < 200_000; i += 1) {
      if (i % 200 === 199) lines.push(`not-a-number-${i},x`);
      else if (i % 200 === 99) lines.push(`+91${6_000_000_000 + i - 50},Repeat`);
      else lines.push(`${6_000_000_000 + i},Name ${i}`);
    }
    const started = performance.now();
    const response = await postCsv(t, account, group, `${lines.join("\n")}\n`);
    const seconds = (performance.now() - started) / 1000;
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toMatchObject({ received: 200_000, added: 198_000, duplicates: 1_000, invalid: 1_000 });
    expect(response.body.data.duplicate_entries[0]).toEqual({ line: 101, number: "6000000049" });
    expect(response.body.data.invalid_entries[0]).toEqual({
      line: 201,
      value: "not-a-number-199",
      reason: "invalid_number",
    });
    console.info(`[${engine}] 200,000-line CSV upload: ${seconds.toFixed(2)} s`);
    const groups = await v2(t, account, "GET", "/groups");
    expect(groups.body.data[0]).toMatchObject({ id: group, contacts: 198_000 });
    const last = await v2(t, account, "GET", `/groups/${group}/contacts?per_page=200&page=990`);
    expect(last.body.meta).toEqual({ page: 990, per_page: 200, total: 198_000, last_page: 990 });
    expect(last.body.data.at(-1)).toMatchObject({ number: "6000199998", name: "Name 199998" });
  });
});
