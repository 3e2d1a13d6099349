// kill -9 while sends stream in: after a restart, every send that was answered with success
// exists and is delivered, and the ledger charged exactly the messages that were stored. In both
// layouts of `start`: one thread, and two (HTTP on one; the worker role and, on SQLite, the
// commits of the sends on the other, see src/app/threads.ts), where the kill takes both threads
// between a commit and the answers it releases. And on SQLite the worker thread dying alone
// (SWITCHBOARD_FAULT_WORKER_THREAD_EXIT: right after a commit, before its answers): the process
// exits with 70 for its supervisor, and the restart recovers as after kill -9.
import { describe, expect, it } from "vitest";
import type { Engine } from "../../../src/base/store/engine.js";
import { ledgerSum, walletBalance } from "../../../src/domain/accounts/index.js";
import { describeEnginesTogether } from "../../helpers/engines.js";
import { pipelineAccount, useKilledServers } from "../../helpers/killed-servers.js";
import { waitUntilAllFinal } from "../../helpers/messages.js";

const CREDITS = 100_000;
/**
 * Sends answered before the fault: 500, not 1,500. With 20 streams the fault comes amid 20 sends
 * in flight and groups committing whatever the count; 500 is past 25 groups, and the 1,000 more
 * only made the stream and the drain after the restart take two thirds of the test's time.
 */
const ANSWERED = 500;

type Fault = "kill -9" | "worker thread ends";

describeEnginesTogether("crash during a stream of sends", (engine) => {
  describe.each(["1", "2"])("SWITCHBOARD_THREADS=%s", (threads) => crashTest(engine, threads, "kill -9"));
  // Where the worker thread commits the sends (SQLite). On PostgreSQL it only dispatches, which
  // the fault suite's kill -9 of a worker process mid-submit covers.
  if (engine === "sqlite") describe("worker thread ends alone", () => crashTest(engine, "2", "worker thread ends"));
});

function crashTest(engine: Engine, threads: string, fault: Fault): void {
  const servers = useKilledServers(engine);

  it("loses no answered send and charges exactly what was stored", async () => {
    const db = servers.db();
    const account = await pipelineAccount(db, "crash", { sms: CREDITS });
    const env = {
      DATABASE_URL: db.url,
      SIMULATOR_LATENCY_MS: "30",
      SIMULATOR_FAILURE_RATE: "0",
      SWITCHBOARD_THREADS: threads,
    };

    const server = await servers.start(
      fault === "worker thread ends" ? { ...env, SWITCHBOARD_FAULT_WORKER_THREAD_EXIT: String(ANSWERED) } : env,
    );
    const url = server.url;
    const answered: string[] = [];
    let killed = false;
    let refused: string | undefined;
    let sequence = 0;
    const stream = async () => {
      while (!killed) {
        const i = sequence++;
        try {
          const response = await fetch(`${url}/api/v2/sms/send`, {
            method: "POST",
            headers: { "content-type": "application/json", authorization: `Bearer ${account.api_key}` },
            // Suffixes 5000-8999 stay clear of the simulator's magic 0001-0003.
            body: JSON.stringify({
              sender_id: "SWBRD",
              recipient: `97${20_005_000 + (i % 4000)}`,
              message: `Crash ${i}`,
            }),
          });
          if (response.status !== 200) {
            refused = `${response.status} ${await response.text()}`;
            break;
          }
          answered.push(((await response.json()) as { data: { message_id: string } }).data.message_id);
        } catch {
          // The connection died with the process: this send was never answered.
        }
      }
    };
    const streams = Array.from({ length: 20 }, stream);
    if (fault === "kill -9") {
      while (answered.length < ANSWERED && !refused) await new Promise((r) => setTimeout(r, 20));
      expect(refused).toBeUndefined();
      await server.stop("SIGKILL");
    } else {
      // The thread ends after the commit of its ANSWERED-th send; the HTTP thread takes the process down.
      expect(await server.exited).toBe(70);
      expect(server.output()).toContain("the worker thread ended");
      expect(answered.length).toBeLessThan(ANSWERED);
      expect(answered.length).toBeGreaterThan(0);
    }
    killed = true;
    await Promise.all(streams);

    await servers.start(env);
    await waitUntilAllFinal(db.store);

    const stored = await db.store.db.selectFrom("messages").select(["id", "status"]).execute();
    const byId = new Map(stored.map((m) => [m.id, m.status]));
    const missing = answered.filter((id) => byId.get(id) !== "delivered");
    expect(missing).toEqual([]);
    // Sends committed in the moment of the crash may have lost only their answer; they count.
    expect(stored.length).toBeGreaterThanOrEqual(answered.length);
    // The thread ended after committing ANSWERED sends and before answering the last group of them.
    if (fault === "worker thread ends") expect(stored.length).toBeGreaterThanOrEqual(ANSWERED);

    const balance = await walletBalance(db.store.db, account.id, "sms");
    expect(balance).toBe((CREDITS - stored.length) * 1000);
    expect(await ledgerSum(db.store.db, account.id, "sms")).toBe(balance);
  }, 120_000);
}
