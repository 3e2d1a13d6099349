// A contacts CSV upload is imported whole or not at all (audit: a large upload cut by the request
// timeout kept the 5,000-contact chunks it had written, and its client got a bare 408 with no
// count). The body is read to its end before a contact is written; the contacts then go in one
// transaction, after the request timeout no longer applies. Every refusal imports nothing and says so.
import { once } from "node:events";
import { watch } from "node:fs";
import { mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { stagingDirectory } from "../../../src/base/core/staging.js";
import { CONTACT_BATCH } from "../../../src/domain/contacts/contacts.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { RawConnection } from "../../helpers/raw-http.js";
import { keyOf } from "../../helpers/sms.js";
import { createGroup, expectError, postCsv, v2 } from "./helpers.js";

vi.setConfig({ testTimeout: 60_000 });

/** Valid numbers, one a line: `count` of them from `from`. */
function numbers(count: number, from = 7_000_000_000): string {
  return `${Array.from({ length: count }, (_, i) => String(from + i)).join("\n")}\n`;
}

async function total(t: TestGateway, account: TestAccount, group: number): Promise<number> {
  const page = await v2(t, account, "GET", `/groups/${group}/contacts?per_page=1`);
  expect(page.status, page.text).toBe(200);
  return page.body.meta.total;
}

/** The head of a CSV upload to the group, with `framing` (its Content-Length or Transfer-Encoding). */
function csvHead(account: TestAccount, group: number, framing: string): string {
  return (
    `POST /api/v2/groups/${group}/contacts HTTP/1.1\r\nHost: x\r\nContent-Type: text/csv\r\n` +
    `X-API-Key: ${keyOf(account)["x-api-key"]}\r\n${framing}\r\n\r\n`
  );
}

/** The gateway's temporary directory in this file: where an upload's staging file appears. */
let temporary = "";
let tmpdirBefore: string | undefined;
beforeAll(async () => {
  tmpdirBefore = process.env.TMPDIR;
  temporary = await mkdtemp(join(tmpdir(), "upload-whole-"));
  process.env.TMPDIR = temporary;
});
afterAll(async () => {
  if (tmpdirBefore === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = tmpdirBefore;
  await rm(temporary, { recursive: true, force: true });
});

/**
 * Resolves once the gateway's staging directory (made in the temporary directory) holds an
 * upload's staging file (`present`) or none (every staging file removed); fails after 10 s.
 */
async function staging(present: boolean): Promise<void> {
  const directory = stagingDirectory();
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const watcher = watch(directory);
  const deadline = AbortSignal.timeout(10_000);
  try {
    for (;;) {
      const changed = once(watcher, "change", { signal: deadline });
      // Left unawaited when the directory is already as asked.
      changed.catch(() => undefined);
      const staged = (await readdir(directory)).filter((name) => name.endsWith(".staged"));
      if (staged.length > 0 === present) return;
      await changed;
    }
  } finally {
    watcher.close();
  }
}

describeEachEngine("a contacts CSV upload, whole or not at all", (engine) => {
  // A short request timeout for the uploads cut by it; the default (60 s) for the others, which a
  // loaded machine may take longer than 2 s to read.
  const timing = useTestGateway(engine, {
    env: { HTTP_REQUEST_TIMEOUT_SECONDS: "2", HTTP_HEADERS_TIMEOUT_SECONDS: "2" },
  });
  const gateway = useTestGateway(engine, { env: { CONTACTS_UPLOAD_MAX_MB: "1" } });

  it("imports nothing from an upload that stalls part-way and is cut by the request timeout", async () => {
    const t = timing();
    const account = await buildAccount(t);
    const group = await createGroup(t, account, "Stalled");
    const connection = await RawConnection.open(t.url);
    try {
      // Over two chunks' worth of lines arrive; the rest of the promised 900,000 bytes never does.
      const part = numbers(3 * CONTACT_BATCH);
      const head = csvHead(account, group, "Content-Length: 900000");
      const started = performance.now();
      // The event waited on: the gateway's answer to the stalled request.
      const answer = await connection.exchange(head, part, 15_000);
      const seconds = (performance.now() - started) / 1000;
      const kept = await total(t, account, group);
      console.info(`[${engine}] stalled upload: ${answer.status} after ${seconds.toFixed(2)} s, ${kept} contacts kept`);
      expect(answer.status).toBe(408);
      // In the v2 family's dialect, and saying what every refusal of the route says: nothing added.
      const refusal = JSON.parse(answer.body);
      expect(refusal).toMatchObject({ status: "error", error: { code: "invalid_request", added: 0 } });
      expect(refusal.message).toContain("HTTP_REQUEST_TIMEOUT_SECONDS");
      expect(refusal.message).toContain("No contact was added");
      expect(kept).toBe(0);
      // The staging file of the cut-off upload is removed.
      await staging(false);
    } finally {
      connection.close();
    }
    // The group takes the file's first lines afterwards as new (a small upload: this gateway's 2 s
    // request timeout is short for a loaded machine).
    const again = await postCsv(t, account, group, numbers(100));
    expect(again.status, again.text).toBe(200);
    expect(again.body.data).toMatchObject({ received: 100, added: 100, duplicates: 0 });
  });

  it("imports a file whose body arrived in time whole, however long its import waits past the timeout", async () => {
    const t = timing();
    const account = await buildAccount(t);
    const group = await createGroup(t, account, "Whole");
    // Past the first 5,000-contact statement: an upload that wrote as it read would block on it.
    const lines = CONTACT_BATCH + 1_000;
    // The group's row held by another writer once the upload is under way: its import waits for
    // it (on SQLite every query waits for the held connection, so the hold starts after the
    // upload's key and group were read).
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding = () => {};
    const held = new Promise<void>((resolve) => {
      holding = resolve;
    });
    const holdGroup = () =>
      t.db.store.transaction(async (trx) => {
        await trx.updateTable("contact_groups").set({ updated_at: Date.now() }).where("id", "=", group).execute();
        holding();
        await released;
      });
    const uploader = await RawConnection.open(t.url);
    const prober = await RawConnection.open(t.url);
    try {
      const body = numbers(lines);
      const started = performance.now();
      const answer = uploader.exchange(
        csvHead(account, group, `Content-Length: ${body.length}`),
        body.slice(0, 1_000),
        20_000,
      );
      // The gateway reads the body (into its staging file) before the group's row is taken.
      await staging(true);
      const holder = holdGroup();
      await held;
      uploader.write(body.slice(1_000));
      // A request started after the upload's, its body never sent: once it is answered 408, the
      // upload's own request timeout has passed too.
      const probe = await prober.exchange(csvHead(account, group, "Content-Length: 100"), "", 15_000);
      expect(probe.status).toBe(408);
      release();
      await holder;
      const response = await answer;
      const seconds = (performance.now() - started) / 1000;
      const kept = await total(t, account, group);
      console.info(
        `[${engine}] ${lines}-line upload held past the 2 s timeout: ${response.status} in ${seconds.toFixed(2)} s, ${kept} kept`,
      );
      expect(response.status, response.body).toBe(200);
      expect(JSON.parse(response.body).data).toMatchObject({
        received: lines,
        added: lines,
        duplicates: 0,
        invalid: 0,
      });
      expect(kept).toBe(lines);
      await staging(false);
    } finally {
      release();
      uploader.close();
      prober.close();
    }
  });

  it("imports nothing from a file with a malformed line after thousands of good ones, and says so", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const group = await createGroup(t, account, "Malformed");
    const bad = 3 * CONTACT_BATCH + 1;
    const response = await postCsv(t, account, group, `${numbers(3 * CONTACT_BATCH)}"9811,unclosed\n9876543210\n`);
    console.info(`[${engine}] malformed line ${bad}: ${response.status}, ${await total(t, account, group)} kept`);
    expectError(response, 400, "invalid_request");
    expect(response.body.error.line).toBe(bad);
    expect(response.body.message).toContain(`line ${bad}`);
    expect(response.body.message).toContain("No contact was added");
    expect(response.body.error.added).toBe(0);
    expect(await total(t, account, group)).toBe(0);
    await staging(false);
  });

  it("imports nothing from a file that passes CONTACTS_UPLOAD_MAX_MB part-way, chunked", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const group = await createGroup(t, account, "Too large");
    // 11 bytes a line: 1 MiB is passed after 95,000 lines, 19 chunks' worth.
    const parts = function* () {
      for (let i = 0; i < 12; i += 1) yield numbers(10_000, 7_000_000_000 + i * 10_000);
    };
    const response = await postCsv(t, account, group, parts());
    console.info(`[${engine}] upload over 1 MiB: ${response.status}, ${await total(t, account, group)} kept`);
    expectError(response, 413, "invalid_request");
    expect(response.body.message).toContain("1 MiB");
    expect(response.body.message).toContain("No contact was added");
    expect(response.body.error.added).toBe(0);
    expect(await total(t, account, group)).toBe(0);
    await staging(false);
  });

  it("refuses a line of too many fields after thousands of good ones, importing nothing", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const group = await createGroup(t, account, "Wide");
    const response = await postCsv(t, account, group, `${numbers(2 * CONTACT_BATCH)}9876543210${",x".repeat(1_500)}\n`);
    expectError(response, 400, "invalid_request");
    expect(response.body.error.line).toBe(2 * CONTACT_BATCH + 1);
    expect(response.body.error.added).toBe(0);
    expect(await total(t, account, group)).toBe(0);
    await staging(false);
  });

  it("refuses an empty file, blank lines only and a header only with 400", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const group = await createGroup(t, account, "Empty");
    for (const body of ["", "\n\r\n\n", "\uFEFFnumber,name\r\n"]) {
      const response = await postCsv(t, account, group, body);
      expectError(response, 400, "invalid_request");
      expect(response.body.message).toContain("no contacts");
    }
    expect(await total(t, account, group)).toBe(0);
    await staging(false);
  });

  it("reports every line of a file with its columns the wrong way round as invalid, adding none", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const group = await createGroup(t, account, "Swapped");
    const response = await postCsv(t, account, group, "Asha,9876543210\nRavi,9876543211\n");
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toMatchObject({
      received: 2,
      added: 0,
      duplicates: 0,
      invalid: 2,
      invalid_entries: [
        { line: 1, value: "Asha", reason: "invalid_number" },
        { line: 2, value: "Ravi", reason: "invalid_number" },
      ],
    });
    expect(await total(t, account, group)).toBe(0);
    await staging(false);
  });
});
