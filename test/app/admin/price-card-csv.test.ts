// A price card sent as CSV (PUT /admin/api/price-cards/{name} with Content-Type: text/csv), on both
// engines: the file `prices import` reads gives the rows it gives the CLI (BOM, quotes, CRLF, blank
// lines), audited as a JSON upload is; a bad line is refused with its number, field and nothing
// written; an empty body, a header alone (unless allow_empty), a body of another type and one over
// the body limit are refused; the JSON form answers as before.
import { expect, it } from "vitest";
import { parsePriceCsv } from "../../../src/domain/accounts/index.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { operatorCall } from "../../helpers/legacy.js";

const CARD = [
  "\uFEFFchannel,route,prefix,price,effective_from",
  "sms,*,9198,0.25,",
  "",
  ' sms , I , "+44" , "0.05" , 2026-12-01T00:00:00Z ',
  "voice,V,*,1.5,",
].join("\r\n");

describeEachEngine("price cards sent as CSV", (engine) => {
  const gateway = useTestGateway(engine, { roles: ["api"] });
  let operator: TestAccount;
  const op = (method: string, path: string, json?: unknown) => operatorCall(gateway(), operator, method, path, json);
  const auth = () => ({ authorization: `Bearer ${operator.apiKey}` });
  const send = (path: string, body: string, type = "text/csv") =>
    call(gateway(), "PUT", `/admin/api/price-cards${path}`, {
      headers: { ...auth(), "content-type": type },
      body,
    });

  it("imports the rows the CLI's parser reads, in any case of the name, audited", async () => {
    operator = await buildAccount(gateway(), { role: "operator" });
    const written = await send("/CSV-Retail", CARD, "text/csv; charset=utf-8");
    expect([written.status, written.body.data]).toEqual([200, { name: "csv-retail", rows: 3, below_parent: [] }]);
    expect((await op("GET", "/price-cards/csv-retail")).body.data.rows).toEqual([
      { channel: "sms", route: "I", prefix: "44", price: 0.05, effective_from: "2026-12-01T00:00:00Z" },
      { channel: "sms", route: "*", prefix: "9198", price: 0.25, effective_from: null },
      { channel: "voice", route: "V", prefix: "*", price: 1.5, effective_from: null },
    ]);
    expect(parsePriceCsv(CARD)).toHaveLength(3);
    // A second file replaces the rows whole; the audit entry says what changed, as for JSON.
    expect((await send("/csv-retail", "channel,route,prefix,price\nsms,*,9198,0.3\n")).body.data).toEqual({
      name: "csv-retail",
      rows: 1,
      below_parent: [],
    });
    const audit = await op("GET", "/audit?action=price_card.save&limit=1");
    expect(audit.body.data[0]).toMatchObject({
      target: "price card csv-retail",
      before: { rows: 3 },
      after: { rows: 1, changed: [{ prefix: "9198", price: 0.3, was: 0.25 }] },
    });
  });

  it("refuses a bad line with its number and field, and writes nothing", async () => {
    const cases: [string, number, string | undefined, RegExp][] = [
      ["channel,route,prefix,price\nsms,*,91,0.2\nsms,*,92,x", 3, "price", /^Line 3: price must be a number/],
      ["channel,route,prefix,price\nsms,T,44x,0.1", 2, "prefix", /^Line 2: prefix must be 1 to 15 digits/],
      ["channel,route,prefix,price\nsms,T,44,1\n\nsms,T,44,2", 4, undefined, /^Line 4: the same .* as line 2/],
      ["channel,route,prefix,price\nsms,T,44,1,2026-12-01", 2, undefined, /^Line 2: 5 fields where the header has 4/],
      ["chan,route,prefix,price\nsms,T,44,1", 1, undefined, /^Line 1: the header must be/],
      ['channel,route,prefix,price\nsms,T,"44,1', 2, undefined, /^Line 2: /],
      ["", 1, undefined, /^Line 1: the header must be/],
    ];
    for (const [body, line, field, message] of cases) {
      const refused = await send("/csv-retail", body);
      expect([refused.status, refused.body.error.code], body).toEqual([400, "invalid_request"]);
      expect(refused.body.message).toMatch(message);
      expect(refused.body.error.line, body).toBe(line);
      expect(refused.body.error.field, body).toBe(field);
    }
    expect((await op("GET", "/price-cards/csv-retail")).body.data.rows).toEqual([
      { channel: "sms", route: "*", prefix: "9198", price: 0.3, effective_from: null },
    ]);
    expect((await call(gateway(), "GET", "/admin/api/price-cards/never-written", { headers: auth() })).status).toBe(
      404,
    );
    expect((await send("/never-written", "channel,route,prefix,price\nfax,*,1,1")).status).toBe(400);
    expect((await call(gateway(), "GET", "/admin/api/price-cards/never-written", { headers: auth() })).status).toBe(
      404,
    );
  });

  it("names a stray quote's own line in words, not the last line the parser reached", async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => `sms,I,${100000 + i},0.1`);
    const unclosed = ["channel,route,prefix,price", ...rows.slice(0, 2), 'sms,I,"44,0.1', ...rows.slice(2)].join(
      "\r\n",
    );
    const cases: [string, number, RegExp][] = [
      [unclosed, 4, /^Line 4: a value opens a quote \("\) that is never closed; nothing imported\.$/],
      [
        'channel,route,prefix,price\nsms,I,"44"x,0.1\nsms,I,45,0.1',
        2,
        /^Line 2: a quoted value goes on after its closing quote/,
      ],
      [
        'channel,route,prefix,price\nsms,I,45,0.1\nsms,I,4"4,0.1',
        3,
        /^Line 3: a quote \("\) inside a value that does not start/,
      ],
      [
        "channel;route;prefix;price\nsms;T;91;0.1",
        1,
        /^Line 1: .*; the file is separated by semicolons, save it with commas$/,
      ],
    ];
    for (const [body, line, message] of cases) {
      const refused = await send("/quotes", body);
      expect([refused.status, refused.body.error.line], refused.text).toEqual([400, line]);
      expect(refused.body.message).toMatch(message);
      // The CLI's parser reads the file whole, and says the same.
      expect(() => parsePriceCsv(body)).toThrow(message);
    }
    expect((await call(gateway(), "GET", "/admin/api/price-cards/quotes", { headers: auth() })).status).toBe(404);
  });

  it("quotes the start of a huge value, and says an Excel workbook is no CSV", async () => {
    const huge = await send("/huge", `channel,route,prefix,price\nsms,T,91,${"x".repeat(3_000_000)}`);
    expect([huge.status, huge.body.error.field], huge.text.slice(0, 300)).toEqual([400, "price"]);
    expect(huge.body.message).toBe(
      `Line 2: price must be a number of credits, at least 0 (got "${"x".repeat(60)}…", 3000000 characters); nothing imported.`,
    );
    // An .xlsx file is a ZIP archive: its first "line" is binary, up to the first newline byte.
    const workbook = `PK\u0003\u0004\u0014\u0000\u0006\u0000${"\u0001".repeat(5000)}\nmore`;
    const excel = await send("/huge", workbook);
    expect([excel.status, excel.body.error.line], excel.text.slice(0, 300)).toEqual([400, 1]);
    expect(excel.body.message).toMatch(
      /^Line 1: the header must be .*, 50\d\d characters\); this is an Excel workbook/,
    );
    expect(excel.text.length).toBeLessThan(1000);
    expect((await call(gateway(), "GET", "/admin/api/price-cards/huge", { headers: auth() })).status).toBe(404);
  });

  it("names the price column and echoes the price as written when it is too fine or too large", async () => {
    const cases: [string, number, string][] = [
      [
        "channel,route,prefix,price\nsms,*,91,0.2\nsms,T,9198,0.12345\n",
        3,
        'Line 3: price must be a number of credits with at most 3 decimals (0.001 is the smallest step the ledger keeps) (got "0.12345"); nothing imported.',
      ],
      [
        "channel,route,prefix,price\nsms,T,9198,99999999999999999\n",
        2,
        'Line 2: price must be at most 1000000000 credits (got "99999999999999999"); nothing imported.',
      ],
    ];
    for (const [body, line, message] of cases) {
      const refused = await send("/csv-fine", body);
      expect([refused.status, refused.body.message, refused.body.error.line, refused.body.error.field]).toEqual([
        400,
        message,
        line,
        "price",
      ]);
    }
    const json = await call(gateway(), "PUT", "/admin/api/price-cards/csv-fine", {
      headers: auth(),
      json: { rows: [{ channel: "sms", route: "T", prefix: "91", price: 0.12345 }] },
    });
    expect([json.status, json.body.error.field, json.body.message]).toEqual([
      400,
      "rows[0].price",
      'rows[0].price: price must be a number of credits with at most 3 decimals (0.001 is the smallest step the ledger keeps) (got "0.12345"); nothing written.',
    ]);
  });

  it("refuses a header alone unless allow_empty=true, and the built-in card", async () => {
    const empty = await send("/csv-retail", "channel,route,prefix,price\n");
    expect([empty.status, empty.body.error.field]).toEqual([400, "rows"]);
    expect(empty.body.message).toContain("?allow_empty=true");
    expect((await send("/csv-retail?allow_empty=true", "channel,route,prefix,price\n")).body.data).toEqual({
      name: "csv-retail",
      rows: 0,
      below_parent: [],
    });
    expect((await send("/default", "channel,route,prefix,price\nsms,*,91,0.2")).status).toBe(400);
  });

  it("refuses a body of another type, none, or one over the body limit; the JSON form answers as before", async () => {
    const csv = "channel,route,prefix,price\nsms,*,91,0.2\n";
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/xml", "application/csv"]) {
      const refused = await send("/typed", csv, type);
      expect([refused.status, refused.body.error.code], type).toEqual([415, "invalid_request"]);
      expect(refused.body.message).toContain("text/csv");
    }
    const none = await call(gateway(), "PUT", "/admin/api/price-cards/typed", { headers: auth() });
    expect([none.status, none.body.error.code]).toEqual([400, "invalid_request"]);
    const huge = await send("/typed", `channel,route,prefix,price\n${"sms,*,91,0.2\n".repeat(1_500_000)}`);
    expect([huge.status, huge.body.error.code]).toEqual([413, "invalid_request"]);
    // It names the limit, so the operator knows what to split the card to.
    expect(huge.body.message).toBe("The request body is larger than the gateway accepts here (at most 16 MiB).");
    expect((await call(gateway(), "GET", "/admin/api/price-cards/typed", { headers: auth() })).status).toBe(404);

    const row = { channel: "sms", route: "*", prefix: "91", price: 0.2 };
    expect((await op("PUT", "/price-cards/typed", { rows: [row] })).body.data).toEqual({
      name: "typed",
      rows: 1,
      below_parent: [],
    });
    const json = (body: unknown) =>
      call(gateway(), "PUT", "/admin/api/price-cards/typed", { headers: auth(), json: body });
    const stringPrice = await json({ rows: [{ ...row, price: "0.2" }] });
    expect([stringPrice.status, stringPrice.body.error.field]).toEqual([400, "rows[0].price"]);
    expect((await json({ rows: [{ ...row, colour: "red" }] })).status).toBe(400);
    const noRows = await json({});
    expect([noRows.status, noRows.body.error.code]).toEqual([400, "invalid_request"]);
    expect(noRows.body.message).toContain("rows");
    const text = await call(gateway(), "PUT", "/admin/api/price-cards/typed", {
      headers: { ...auth(), "content-type": "application/json" },
      body: "{",
    });
    expect([text.status, text.body.error.code]).toEqual([400, "invalid_json"]);
    expect((await op("GET", "/price-cards/typed")).body.data.rows).toHaveLength(1);
  });
});
