// A DND import through the operator API is whole or not at all (audit: it committed 5,000 numbers
// at a time, so a malformed line, a body over the limit or a stall left a half-written registry
// and the refusal no count). The file is staged to its end, then written in one transaction; every
// refusal adds nothing and says so (`error.added`: 0).
import { once } from "node:events";
import { watch } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { stagingDirectory } from "../../../src/base/core/staging.js";
import { DND_BATCH } from "../../../src/domain/accounts/dnd.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type JsonResponse, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { RawConnection } from "../../helpers/raw-http.js";

vi.setConfig({ testTimeout: 60_000 });

/** Valid numbers, one a line: `count` of them from `from`. */
function numbers(count: number, from = 7_000_000_000): string {
  return `${Array.from({ length: count }, (_, i) => String(from + i)).join("\n")}\n`;
}

/** This file's temporary directory: the gateways' staging directory is made in it. */
let temporary = "";
let tmpdirBefore: string | undefined;
beforeAll(async () => {
  tmpdirBefore = process.env.TMPDIR;
  temporary = await mkdtemp(join(tmpdir(), "dnd-whole-"));
  process.env.TMPDIR = temporary;
});
afterAll(async () => {
  if (tmpdirBefore === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = tmpdirBefore;
  await rm(temporary, { recursive: true, force: true });
});

/** Resolves once the staging directory holds a staging file (`present`) or none; fails after 10 s. */
async function staging(present: boolean): Promise<void> {
  const directory = stagingDirectory();
  const watcher = watch(directory);
  const deadline = AbortSignal.timeout(10_000);
  try {
    for (;;) {
      const changed = once(watcher, "change", { signal: deadline });
      changed.catch(() => undefined);
      const staged = (await readdir(directory)).filter((name) => name.endsWith(".staged"));
      if (staged.length > 0 === present) return;
      await changed;
    }
  } finally {
    watcher.close();
  }
}

describeEachEngine("a DND import, whole or not at all", (engine) => {
  const gateway = useTestGateway(engine, { env: { DND_IMPORT_MAX_MB: "1" } });
  const timing = useTestGateway(engine, {
    env: { HTTP_REQUEST_TIMEOUT_SECONDS: "2", HTTP_HEADERS_TIMEOUT_SECONDS: "2" },
  });
  let key = "";
  let timingKey = "";
  beforeAll(async () => {
    key = (await buildAccount(gateway(), { role: "operator", sender: null })).apiKey;
    timingKey = (await buildAccount(timing(), { role: "operator", sender: null })).apiKey;
  });

  async function count(t: TestGateway, apiKey: string): Promise<number> {
    const answer = await call(t, "GET", "/admin/api/dnd", { headers: { authorization: `Bearer ${apiKey}` } });
    expect(answer.status, answer.text).toBe(200);
    return answer.body.data.count;
  }

  /** POSTs a CSV body: a string with a Content-Length, an iterable of strings chunked. */
  async function importCsv(csv: string | Iterable<string>, query = ""): Promise<JsonResponse> {
    const body =
      typeof csv === "string"
        ? csv
        : new ReadableStream<Uint8Array>({
            start(controller) {
              const encoder = new TextEncoder();
              for (const part of csv) controller.enqueue(encoder.encode(part));
              controller.close();
            },
          });
    const response = await fetch(`${gateway().url}/admin/api/dnd/import${query}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "text/csv" },
      body,
      duplex: "half",
    } as RequestInit);
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: JSON.parse(text), text };
  }

  function expectNothingAdded(response: JsonResponse, status: number): void {
    expect(response.status, response.text).toBe(status);
    expect(response.body).toMatchObject({ status: "error", error: { code: "invalid_request", added: 0 } });
    expect(response.body.message).toContain("No number was added");
  }

  it("imports nothing from a file with a malformed line after thousands of good ones, and says so", async () => {
    const t = gateway();
    const before = await count(t, key);
    const bad = 3 * DND_BATCH + 1;
    const response = await importCsv(`${numbers(3 * DND_BATCH)}"9811,unclosed\n9876543210\n`);
    const kept = (await count(t, key)) - before;
    console.info(`[${engine}] DND import malformed at line ${bad}: ${response.status}, ${kept} numbers kept`);
    expectNothingAdded(response, 400);
    expect(response.body.message).toContain(`line ${bad}`);
    expect(response.body.error.line).toBe(bad);
    expect(kept).toBe(0);
    await staging(false);
  });

  it("imports nothing from a file that passes DND_IMPORT_MAX_MB part-way, chunked", async () => {
    const t = gateway();
    const before = await count(t, key);
    // 11 bytes a line: 1 MiB is passed after 95,000 lines, 19 batches' worth.
    const parts = function* () {
      for (let i = 0; i < 12; i += 1) yield numbers(10_000, 7_100_000_000 + i * 10_000);
    };
    const response = await importCsv(parts());
    const kept = (await count(t, key)) - before;
    console.info(`[${engine}] DND import over 1 MiB: ${response.status}, ${kept} numbers kept`);
    expectNothingAdded(response, 413);
    expect(response.body.message).toContain("1 MiB");
    expect(kept).toBe(0);
    await staging(false);
  });

  it("refuses a Content-Length over DND_IMPORT_MAX_MB before reading, adding nothing", async () => {
    const t = gateway();
    const before = await count(t, key);
    const response = await importCsv(numbers(100_000, 7_300_000_000));
    expectNothingAdded(response, 413);
    expect((await count(t, key)) - before).toBe(0);
  });

  it("imports a good file whole, and replaces the registry with one", async () => {
    const t = gateway();
    const lines = 3 * DND_BATCH + 7;
    const response = await importCsv(`number\n${numbers(lines, 7_200_000_000)}9876543210\n12345\n`, "?replace=true");
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toEqual({
      added: lines + 1,
      duplicates: 0,
      invalid_count: 1,
      invalid: [{ line: lines + 3, value: "12345" }],
    });
    expect(await count(t, key)).toBe(lines + 1);
    const again = await importCsv(numbers(10, 7_200_000_000));
    expect(again.body.data).toMatchObject({ added: 0, duplicates: 10 });
    await staging(false);
  });

  it("imports nothing from an upload cut by the request timeout, and its 408 says so", async () => {
    const t = timing();
    const before = await count(t, timingKey);
    const connection = await RawConnection.open(t.url);
    try {
      const head =
        "POST /admin/api/dnd/import HTTP/1.1\r\nHost: x\r\nContent-Type: text/csv\r\n" +
        `Authorization: Bearer ${timingKey}\r\nContent-Length: 900000\r\n\r\n`;
      // The event waited on: the gateway's answer to the stalled request.
      const answer = await connection.exchange(head, numbers(3 * DND_BATCH), 15_000);
      const kept = (await count(t, timingKey)) - before;
      console.info(`[${engine}] stalled DND import: ${answer.status}, ${kept} numbers kept`);
      expect(answer.status).toBe(408);
      const body = JSON.parse(answer.body);
      expect(body).toMatchObject({ status: "error", error: { code: "invalid_request", added: 0 } });
      expect(body.message).toContain("No number was added");
      expect(kept).toBe(0);
      await staging(false);
    } finally {
      connection.close();
    }
  });
});
