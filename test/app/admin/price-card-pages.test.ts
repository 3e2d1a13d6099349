// A price card a page at a time (GET /admin/api/price-cards/{name}, decision 0154) and whole as
// CSV or JSON Lines (GET …/export), on both engines: the pages' meta and order (channel, prefix,
// route, effective_from, `always` first), the channel and prefix filters, bad parameters refused
// in the operator API's words, an unknown card 404, and an export that imports back as it is.
import { beforeAll, expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { operatorCall } from "../../helpers/legacy.js";

interface Row {
  channel: string;
  route: string;
  prefix: string;
  price: number;
  effective_from: string | null;
}

/** 250 rows, written out of order: 200 SMS prefixes, 30 of them with a later price too, 19 voice, `*`. */
function cardRows(): Row[] {
  const rows: Row[] = [];
  for (let i = 199; i >= 0; i--) {
    const prefix = String(9100 + i);
    rows.push({ channel: "sms", route: i % 2 ? "T" : "*", prefix, price: 0.1, effective_from: null });
    if (i < 30) rows.push({ channel: "sms", route: "T", prefix, price: 0.2, effective_from: "2027-01-01T00:00:00Z" });
  }
  // Voice: 44 to 53, then 9110 to 9118 (which an SMS prefix starts with too).
  for (let i = 0; i < 19; i++) {
    const prefix = i < 10 ? String(44 + i) : String(9100 + i);
    rows.push({ channel: "voice", route: "V", prefix, price: 1.5, effective_from: null });
  }
  rows.push({ channel: "sms", route: "*", prefix: "*", price: 0.5, effective_from: null });
  return rows;
}

/** The order the pages answer in. */
function inOrder(rows: readonly Row[]): Row[] {
  const key = (r: Row) => [r.channel, r.prefix, r.route, r.effective_from ?? ""];
  return [...rows].sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
    return 0;
  });
}

describeEachEngine("price cards by page and exported", (engine) => {
  const gateway = useTestGateway(engine, { roles: ["api"] });
  let operator: TestAccount;
  const rows = cardRows();
  const op = (method: string, path: string, json?: unknown) => operatorCall(gateway(), operator, method, path, json);
  const raw = (path: string, init: { headers?: Record<string, string>; body?: string; method?: string } = {}) =>
    call(gateway(), init.method ?? "GET", `/admin/api${path}`, {
      headers: { authorization: `Bearer ${operator.apiKey}`, ...init.headers },
      ...(init.body === undefined ? {} : { body: init.body }),
    });

  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator" });
    expect(rows).toHaveLength(250);
    expect((await op("PUT", "/price-cards/Paged", { rows })).body.data).toEqual({
      name: "paged",
      rows: 250,
      below_parent: [],
    });
  });

  it("answers a page at a time with meta, in the card's order", async () => {
    const first = await op("GET", "/price-cards/PAGED");
    expect(first.body.meta).toEqual({ page: 1, per_page: 100, total: 250, last_page: 3 });
    expect(first.body.data.name).toBe("paged");
    expect(first.body.data.row_count).toBe(250);
    expect(first.body.data.rows).toHaveLength(100);
    const all = [...first.body.data.rows];
    for (const page of [2, 3]) all.push(...(await op("GET", `/price-cards/paged?page=${page}`)).body.data.rows);
    expect(all).toEqual(inOrder(rows));
    expect(all[0]).toEqual({ channel: "sms", route: "*", prefix: "*", price: 0.5, effective_from: null });
    expect(all.slice(1, 3).map((r: Row) => [r.prefix, r.route, r.effective_from])).toEqual([
      ["9100", "*", null],
      ["9100", "T", "2027-01-01T00:00:00Z"],
    ]);
    // A prefix's `always` row before its dated one.
    expect(all.filter((r: Row) => r.prefix === "9101").map((r: Row) => r.effective_from)).toEqual([
      null,
      "2027-01-01T00:00:00Z",
    ]);

    const last = await op("GET", "/price-cards/paged?page=9&per_page=30");
    expect(last.body.meta).toEqual({ page: 9, per_page: 30, total: 250, last_page: 9 });
    expect(last.body.data.rows).toEqual(inOrder(rows).slice(240));
    const past = await op("GET", "/price-cards/paged?page=4");
    expect([past.body.data.rows, past.body.meta.last_page]).toEqual([[], 3]);
    const whole = await op("GET", "/price-cards/paged?per_page=1000");
    expect(whole.body.data.rows).toEqual(inOrder(rows));
  });

  it("narrows by channel and by the start of the prefix, on the server", async () => {
    const voice = await op("GET", "/price-cards/paged?channel=voice&per_page=10");
    expect(voice.body.meta).toEqual({ page: 1, per_page: 10, total: 19, last_page: 2 });
    expect(voice.body.data.row_count).toBe(250);
    expect(voice.body.data.rows.map((r: Row) => r.prefix)).toEqual([
      "44",
      "45",
      "46",
      "47",
      "48",
      "49",
      "50",
      "51",
      "52",
      "53",
    ]);
    // SMS 9110 to 9119, each with an `always` row and a dated one, then voice 9110 to 9118: a page
    // across the two channels.
    const prefixed = await op("GET", "/price-cards/paged?prefix=%2B911");
    expect(prefixed.body.meta.total).toBe(29);
    expect(prefixed.body.data.rows).toEqual(inOrder(rows).filter((r) => r.prefix.startsWith("911")));
    const across = await op("GET", "/price-cards/paged?prefix=911&per_page=12&page=2");
    expect(across.body.meta).toEqual({ page: 2, per_page: 12, total: 29, last_page: 3 });
    expect(across.body.data.rows).toEqual(prefixed.body.data.rows.slice(12, 24));
    expect(across.body.data.rows.map((r: Row) => `${r.channel} ${r.prefix}`).slice(6)).toEqual([
      "sms 9119",
      "sms 9119",
      "voice 9110",
      "voice 9111",
      "voice 9112",
      "voice 9113",
    ]);
    const both = await op("GET", "/price-cards/paged?channel=voice&prefix=4");
    expect(both.body.data.rows.map((r: Row) => r.prefix)).toEqual(["44", "45", "46", "47", "48", "49"]);
    const sms4 = await op("GET", "/price-cards/paged?channel=sms&prefix=4");
    expect([sms4.body.data.rows, sms4.body.meta]).toEqual([[], { page: 1, per_page: 100, total: 0, last_page: 1 }]);
    // The whole prefix, and one longer than any row's.
    expect((await op("GET", "/price-cards/paged?prefix=9199")).body.meta.total).toBe(1);
    expect((await op("GET", "/price-cards/paged?prefix=91999")).body.meta.total).toBe(0);
  });

  it("refuses bad parameters with 400 invalid_request naming the field", async () => {
    const cases: [string, string][] = [
      ["page=0", "page"],
      ["page=1000001", "page"],
      ["page=x", "page"],
      ["per_page=0", "per_page"],
      ["per_page=1001", "per_page"],
      ["channel=fax", "channel"],
      ["channel=SMS", "channel"],
      ["prefix=9x", "prefix"],
      ["prefix=", "prefix"],
      ["prefix=*", "prefix"],
      ["prefix=1234567890123456", "prefix"],
      ["prefix=1&prefix=2", "prefix"],
      ["sort=prefix", "sort"],
    ];
    for (const [query, field] of cases) {
      const refused = await raw(`/price-cards/paged?${query}`);
      expect([query, refused.status, refused.body?.error?.code, refused.body?.error?.field]).toEqual([
        query,
        400,
        "invalid_request",
        field,
      ]);
      expect(refused.body.message, query).toContain(`"${field}"`);
    }
    const format = await raw("/price-cards/paged/export?format=xlsx");
    expect([format.status, format.body.error.field]).toEqual([400, "format"]);
  });

  it("answers 404 for an unknown card, and the built-in card without rows", async () => {
    for (const path of ["/price-cards/never-written", "/price-cards/never-written/export"]) {
      const missing = await raw(path);
      expect([missing.status, missing.body.error.code]).toEqual([404, "not_found"]);
    }
    const builtIn = await op("GET", "/price-cards/default");
    expect(builtIn.body).toEqual({
      status: "success",
      data: { name: "default", row_count: 0, rows: [] },
      meta: { page: 1, per_page: 100, total: 0, last_page: 1 },
    });
    expect((await raw("/price-cards/default/export")).text).toBe("channel,route,prefix,price,effective_from\n");
  });

  it("exports every row as the CSV the PUT reads, which imports back as it is", async () => {
    const exported = await raw("/price-cards/PAGED/export");
    expect(exported.status).toBe(200);
    expect(exported.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(exported.headers.get("content-disposition")).toBe('attachment; filename="price-card-paged.csv"');
    const lines = exported.text.trimEnd().split("\n");
    expect(lines[0]).toBe("channel,route,prefix,price,effective_from");
    // In the pages' order, whatever the order the rows were imported in.
    expect(lines.slice(1, 4)).toEqual(["sms,*,*,0.5,", "sms,*,9100,0.1,", "sms,T,9100,0.2,2027-01-01T00:00:00Z"]);
    expect(lines).toHaveLength(251);
    expect(lines).toContain("sms,T,9100,0.2,2027-01-01T00:00:00Z");

    const copy = await raw("/price-cards/copy", {
      method: "PUT",
      headers: { "content-type": "text/csv" },
      body: exported.text,
    });
    expect([copy.status, copy.body.data]).toEqual([200, { name: "copy", rows: 250, below_parent: [] }]);
    const copied = await op("GET", "/price-cards/copy?per_page=1000");
    expect(copied.body.data.rows).toEqual((await op("GET", "/price-cards/paged?per_page=1000")).body.data.rows);
    expect((await raw("/price-cards/copy/export")).text).toBe(exported.text);

    const jsonl = await raw("/price-cards/paged/export?format=jsonl");
    expect(jsonl.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
    const objects = jsonl.text
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(objects).toEqual(inOrder(rows));
  });
});
