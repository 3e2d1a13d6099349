// SIGHUP of a real `switchboard start` process (a closed terminal, or a `kill -HUP` meant as
// "reload") stops it as SIGTERM does: the batch at the carrier is answered and recorded, and it
// exits 0 having said "stopped". Before, Node's default action ended it at once, with no line.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { FakeSmsc } from "../delivery/carriers/fake-smsc.js";
import { demoKey, type ServerProcess, sendDemoSms, startServer } from "../helpers/cli.js";
import { createTestDatabase, describeEnginesTogether, type TestDatabase } from "../helpers/engines.js";

describeEnginesTogether("SIGHUP", (engine) => {
  let db: TestDatabase | undefined;
  let dir: string;
  let smsc: FakeSmsc | undefined;
  let server: ServerProcess | undefined;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-sighup-"));
  });
  afterEach(async () => {
    await server?.stop("SIGKILL");
    server = undefined;
    await smsc?.stop();
    await db?.drop();
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("stops gracefully: the batch the carrier holds is answered and recorded, exit 0; a second signal changes nothing", async () => {
    db = await createTestDatabase(engine);
    const carrier = new FakeSmsc();
    smsc = carrier;
    await carrier.start();
    carrier.holding = true;
    const file = path.join(dir, `carriers-${carrier.port}.json`);
    fs.writeFileSync(
      file,
      JSON.stringify({
        connectors: [
          {
            name: "hup-smsc",
            type: "smpp",
            host: "127.0.0.1",
            port: carrier.port,
            system_id: carrier.systemId,
            password: carrier.password,
            connections: 1,
            window: 10,
            response_timeout_ms: 10_000,
          },
        ],
        routes: [{ route: "*", prefix: "", connectors: [{ name: "hup-smsc", weight: 1 }] }],
      }),
    );
    const running = await startServer(
      "start",
      { DATABASE_URL: db.url, SWITCHBOARD_CARRIERS_FILE: file, SHUTDOWN_TIMEOUT_SECONDS: "20" },
      { timeoutMs: 60_000 },
    );
    server = running;
    const key = demoKey(running);
    await carrier.waitFor(() => carrier.boundConnections >= 1, 20_000, "a bind");
    const sent = await Promise.all([0, 1, 2].map((n) => sendDemoSms(running.url, key, `98765${43210 + n}`)));
    await carrier.waitFor(() => carrier.submits.length >= 1, 20_000, "a submit awaiting its answer");

    const exited = running.stop("SIGHUP");
    await carrier.waitFor(() => running.output().includes("shutting down"), 20_000, "the signal handled");
    expect(running.output()).toMatch(/"signal":"SIGHUP"[^\n]*"msg":"shutting down: finishing work in flight"/);
    process.kill(running.pid, "SIGTERM");
    await carrier.waitFor(() => running.output().includes("already shutting down"), 20_000, "the second signal");
    // Only now does the carrier answer: the process is still there to record it.
    carrier.release();
    expect(await exited, running.output()).toBe(0);
    expect(running.output()).toMatch(/"msg":"stopped"/);
    server = undefined;

    const rows = await db.store.db.selectFrom("messages").select(["status"]).where("id", "in", sent).execute();
    const submitted = rows.filter((row) => row.status === "submitted");
    expect(submitted.length).toBeGreaterThanOrEqual(1);
    expect(submitted.length).toBe(carrier.submits.length);
    for (const row of rows) expect(["submitted", "queued"]).toContain(row.status);
  }, 120_000);
});
