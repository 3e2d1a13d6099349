// SIGTERM of a real `switchboard start` process: it answers the request it is in the middle of
// reading, waits for the carrier's answers to the batch it has submitted and records them, and
// exits 0, its worker thread ending itself (what node writes at a thread's exit is written); a
// carrier that never answers is abandoned after SHUTDOWN_TIMEOUT_SECONDS (exit 1).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { FakeSmsc } from "../delivery/carriers/fake-smsc.js";
import { DEMO_TEXT, demoKey, type ServerProcess, sendDemoSms, startServer } from "../helpers/cli.js";
import { createTestDatabase, describeEnginesTogether, type TestDatabase } from "../helpers/engines.js";
import { RawConnection } from "../helpers/raw-http.js";

function carriersFile(dir: string, smsc: FakeSmsc, responseTimeoutMs: number): string {
  const file = path.join(dir, `carriers-${smsc.port}.json`);
  fs.writeFileSync(
    file,
    JSON.stringify({
      connectors: [
        {
          name: "shutdown-smsc",
          type: "smpp",
          host: "127.0.0.1",
          port: smsc.port,
          system_id: smsc.systemId,
          password: smsc.password,
          connections: 1,
          window: 50,
          response_timeout_ms: responseTimeoutMs,
        },
      ],
      routes: [{ route: "*", prefix: "", connectors: [{ name: "shutdown-smsc", weight: 1 }] }],
    }),
  );
  return file;
}

/** A send from the demo account that must be accepted, the n-th of the test (its own recipient). */
function send(url: string, key: string, n: number): Promise<string> {
  return sendDemoSms(url, key, `98765${43210 + n}`);
}

describeEnginesTogether("graceful SIGTERM", (engine) => {
  let db: TestDatabase;
  let dir: string;
  let smsc: FakeSmsc;
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-shutdown-"));
  });
  afterEach(async () => {
    await server?.stop("SIGKILL");
    server = undefined;
    await smsc?.stop();
    await db?.drop();
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("finishes the request in flight and the batch at the carrier, records it, and exits 0; the worker thread ends itself: what node writes at a thread's exit (a --cpu-prof profile) is written", async () => {
    db = await createTestDatabase(engine);
    // Node writes each thread's CPU profile as the thread ends: only if the worker thread ends itself (checked last).
    const profiles = fs.mkdtempSync(path.join(dir, "profiles-"));
    smsc = new FakeSmsc();
    await smsc.start();
    // The carrier's answers are held back: the signal arrives while the batch waits for them.
    smsc.holding = true;
    server = await startServer(
      "start",
      {
        DATABASE_URL: db.url,
        SWITCHBOARD_CARRIERS_FILE: carriersFile(dir, smsc, 10_000),
        SHUTDOWN_TIMEOUT_SECONDS: "20",
      },
      { timeoutMs: 60_000, nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${profiles}`] },
    );
    const key = demoKey(server);
    await smsc.waitFor(() => smsc.boundConnections >= 1, 20_000, "a bind");
    const sent = await Promise.all(Array.from({ length: 10 }, (_, n) => send(server!.url, key, n)));
    await smsc.waitFor(() => smsc.submits.length >= 1, 20_000, "a submit awaiting its answer");

    // A request whose body is half sent when the signal arrives.
    const body = JSON.stringify({ sender_id: "SWBRD", recipient: "9876500001", message: DEMO_TEXT });
    const connection = await RawConnection.open(server.url);
    connection.write(
      `POST /api/v2/sms/send HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nauthorization: Bearer ${key}\r\ncontent-length: ${body.length}\r\n\r\n${body.slice(0, 20)}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const signalled = Date.now();
    const exited = server.stop("SIGTERM");
    const running = server;
    await smsc.waitFor(() => running.output().includes("shutting down"), 20_000, "the signal handled");
    const held = smsc.submits.length;
    expect(smsc.submits.every((submit) => submit.messageId === null)).toBe(true);
    // Only now, after the signal, does the carrier answer: the process is still there to record it.
    smsc.release();
    const answer = await connection.exchange(body.slice(20), "", 15_000);
    expect(answer.status).toBe(200);
    expect(answer.headers.connection).toBe("close");
    const late = (JSON.parse(answer.body) as { data: { message_id: string } }).data.message_id;

    const code = await exited;
    expect(code, server.output()).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(20_000);
    expect(server.output()).toMatch(/"msg":"stopped"/);
    server = undefined;

    // Every submit the carrier answered during the shutdown is recorded as submitted, once;
    // a message the batch did not hold is still queued, to go at the next start.
    const rows = await db.store.db
      .selectFrom("messages")
      .select(["id", "status", "upstream_id"])
      .where("id", "in", [...sent, late])
      .execute();
    const byId = new Map(rows.map((row) => [row.id, row]));
    expect(held).toBeGreaterThanOrEqual(1);
    expect(smsc.submits.every((submit) => submit.messageId !== null)).toBe(true);
    const submitted = rows.filter((row) => row.status === "submitted");
    expect(new Set(submitted.map((row) => row.upstream_id))).toEqual(
      new Set(smsc.submits.map((submit) => submit.messageId)),
    );
    expect(submitted.length).toBe(smsc.submits.length);
    for (const id of sent) expect(["submitted", "queued"]).toContain(byId.get(id)?.status);
    // The request answered during the shutdown was stored.
    expect(byId.has(late)).toBe(true);

    // One profile per thread: the HTTP thread's and the worker thread's. Terminated at once
    // after its "stopped", the worker thread wrote none ("Failed to stringify CPU profile").
    const written = fs.readdirSync(profiles).filter((file) => file.endsWith(".cpuprofile"));
    expect(written).toHaveLength(2);
    for (const file of written) {
      expect(JSON.parse(fs.readFileSync(path.join(profiles, file), "utf8")).nodes.length).toBeGreaterThan(0);
    }
  }, 120_000);

  it("gives up on a carrier that never answers after SHUTDOWN_TIMEOUT_SECONDS, exiting 1", async () => {
    db = await createTestDatabase(engine);
    smsc = new FakeSmsc();
    await smsc.start();
    smsc.next(1_000, "hang");
    server = await startServer(
      "start",
      {
        DATABASE_URL: db.url,
        SWITCHBOARD_CARRIERS_FILE: carriersFile(dir, smsc, 10_000),
        SHUTDOWN_TIMEOUT_SECONDS: "2",
      },
      { timeoutMs: 60_000 },
    );
    const key = demoKey(server);
    await smsc.waitFor(() => smsc.boundConnections >= 1, 20_000, "a bind");
    await Promise.all([0, 1, 2].map((n) => send(server!.url, key, n)));
    await smsc.waitFor(() => smsc.submits.length >= 3, 20_000, "3 submits");

    const signalled = Date.now();
    expect(await server.stop("SIGTERM")).toBe(1);
    const took = Date.now() - signalled;
    expect(took).toBeGreaterThanOrEqual(1_900);
    // The bound, plus what a loaded machine adds; far below the 10 s the carrier answer may take, plus its retries.
    expect(took).toBeLessThan(30_000);
    expect(server.output()).toMatch(/shutdown did not finish within SHUTDOWN_TIMEOUT_SECONDS/);
    expect(server.output()).toMatch(/"stage":"workers: work in hand"/);
    server = undefined;
  }, 120_000);
});
