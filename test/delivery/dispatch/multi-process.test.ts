// Scale-out on PostgreSQL: one `api` and two `worker` processes share a database. Every message
// must reach the carrier exactly once (the simulators' capture files are the carrier's record)
// and the ledger must hold exactly the expected charge.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addSenderIdFor, createAccountWithKey } from "../../../src/app/admin/index.js";
import { systemClock } from "../../../src/base/core/clock.js";
import { ledgerSum, walletBalance } from "../../../src/domain/accounts/index.js";
import { cliActor } from "../../../src/domain/audit/index.js";
import { type ServerProcess, startServer } from "../../helpers/cli.js";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../../helpers/engines.js";
import { waitUntilAllFinal } from "../../helpers/messages.js";

/**
 * 2,000, not 5,000: sent by 50 clients at once as fast as the api answers, they come to the
 * workers' claims (up to 500 each) over seconds, so both workers claim many batches side by side
 * (SKIP LOCKED between them) either way; the 3,000 more only made the test's sending and draining
 * two and a half times as long.
 */
const MESSAGES = 2000;
const suite = postgresAvailable ? describe : describe.skip;

suite("api + 2 workers on PostgreSQL", () => {
  let db: TestDatabase;
  let dir: string;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    db = await createTestDatabase("postgres");
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-multi-"));
  });

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop("SIGTERM")));
    await db?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it(`submits each of ${MESSAGES} messages exactly once and charges exactly`, async () => {
    const deps = { store: db.store, clock: systemClock, actor: cliActor() };
    const account = await createAccountWithKey(deps, {
      username: "scale",
      password: "scale-password",
      credits: { sms: MESSAGES + 250 },
      rateLimit: 0,
    });
    await addSenderIdFor(deps, { username: "scale", sender: "SWBRD", approve: true });
    // This tests the pipeline, not the DLT rules.
    await db.store.db.updateTable("accounts").set({ dlt_scrubbing: 0 }).where("id", "=", account.id).execute();

    const common = { DATABASE_URL: db.url, SIMULATOR_LATENCY_MS: "20", SIMULATOR_FAILURE_RATE: "0" };
    // Started side by side (each is seconds of Node start-up), all running before the first send.
    servers.push(
      ...(await Promise.all([
        startServer("api", common),
        ...[1, 2].map((n) =>
          startServer("worker", { ...common, SIMULATOR_CAPTURE_FILE: path.join(dir, `carrier-${n}.jsonl`) }),
        ),
      ])),
    );
    const api = servers[0]!.url;

    const accepted: string[] = [];
    let next = 0;
    const sendOne = async (i: number) => {
      const response = await fetch(`${api}/api/v2/sms/send`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${account.api_key}` },
        // Offset past the simulator's magic suffixes 0001-0003 (fail, reject, throttle).
        body: JSON.stringify({ sender_id: "SWBRD", recipient: `98765${10000 + 5000 + i}`, message: `Message ${i}` }),
      });
      const body = (await response.json()) as { success: boolean; data: { message_id: string } };
      expect(response.status).toBe(200);
      accepted.push(body.data.message_id);
    };
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        while (next < MESSAGES) await sendOne(next++);
      }),
    );
    expect(accepted).toHaveLength(MESSAGES);

    await waitUntilAllFinal(db.store);

    const captured = [1, 2].flatMap((n) => {
      const file = path.join(dir, `carrier-${n}.jsonl`);
      return fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim().split("\n").filter(Boolean) : [];
    });
    const perWorker = [1, 2].map((n) => {
      const file = path.join(dir, `carrier-${n}.jsonl`);
      return fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim().split("\n").filter(Boolean).length : 0;
    });
    const ids = captured.map((line) => (JSON.parse(line) as { id: string }).id);
    expect(ids).toHaveLength(MESSAGES);
    expect(new Set(ids).size).toBe(MESSAGES);
    expect(new Set(ids)).toEqual(new Set(accepted));
    // Both workers took part: SKIP LOCKED shares the queue rather than serialising on it.
    expect(Math.min(...perWorker)).toBeGreaterThan(0);

    const statuses = await db.store.db
      .selectFrom("messages")
      .select(["status", (eb) => eb.fn.countAll<number>().as("n")])
      .groupBy("status")
      .execute();
    expect(statuses.map((s) => [s.status, Number(s.n)])).toEqual([["delivered", MESSAGES]]);

    const balance = await walletBalance(db.store.db, account.id, "sms");
    expect(balance).toBe(250 * 1000);
    expect(await ledgerSum(db.store.db, account.id, "sms")).toBe(balance);
  }, 120_000);
});
