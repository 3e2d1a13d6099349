// The fault suite (issue 20): a steady stream of sends through real processes (two `api`, two
// `worker`) on a throwaway PostgreSQL and Redis of this file, an SMSC (test/carriers/fake-smsc.ts,
// receipts kept and resent as a real SMSC does) and a webhook receiver, while one fault after
// another is injected: kill -9 of an api process; kill -9 of a worker with submits awaiting the
// SMSC's answer; Redis stopped; the SMSC dropping and refusing every connection; PostgreSQL
// restarted (stopped `immediate`, a crash); the webhook receiver answering 500, then 200. Then
// the invariants: every answered send stored once and final exactly once (one charge, one
// delivery-report event); a message submitted twice only when the gateway never recorded the
// SMSC's answer to the first submit (counted, with the fault that caused it); the ledger equal
// to the balance and to the charges of the stored messages; every event's webhook received with
// a 2xx at least once, each attempt under the same webhook-id; nothing left in the queues.
// Prints one figures line per fault. FAULT_ROUNDS, FAULT_OUTAGE_SECONDS and FAULT_RATE make it
// longer (bench/faults/run.mjs); the defaults keep it within about a minute.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addSenderIdFor, createAccountWithKey } from "../../src/app/admin/index.js";
import { systemClock } from "../../src/base/core/clock.js";
import { openStore, type Store } from "../../src/base/store/store.js";
import { ledgerSum, walletBalance } from "../../src/domain/accounts/index.js";
import { cliActor } from "../../src/domain/audit/index.js";
import { setWebhookUrls } from "../../src/domain/webhooks/settings.js";
import { FakeSmsc } from "../delivery/carriers/fake-smsc.js";
import { Receiver } from "../domain/webhooks/receiver.js";
import { type ServerProcess, startServer } from "../helpers/cli.js";
import {
  postgresServerAvailable,
  redisServerAvailable,
  startThrowawayPostgres,
  startThrowawayRedis,
  type ThrowawayPostgres,
  type ThrowawayRedis,
} from "../helpers/throwaway.js";

const required = process.env.SWITCHBOARD_REQUIRE_POSTGRES === "1";
const available = postgresServerAvailable() && redisServerAvailable();
if (required && !available) {
  throw new Error("SWITCHBOARD_REQUIRE_POSTGRES=1 but the fault suite needs initdb/pg_ctl and redis-server");
}
if (!available) console.warn("Fault suite skipped: it needs PostgreSQL's initdb/pg_ctl and redis-server.");
const suite = available ? describe : describe.skip;

const ROUNDS = Number(process.env.FAULT_ROUNDS ?? 1);
/** How long Redis stays down, the SMSC refuses connections and the receiver answers 500. */
const OUTAGE_MS = Number(process.env.FAULT_OUTAGE_SECONDS ?? 2.5) * 1000;
/**
 * How long the receiver answers 500 as the webhook senders' retries see it: lived in OUTAGE_MS,
 * the test moving every due retry forward as a clock running that much faster would
 * (FAULT_RECEIVER_SECONDS=600: ten minutes of back-off, attempts 5 s to 5 min apart).
 */
const RECEIVER_OUTAGE_MS = Number(process.env.FAULT_RECEIVER_SECONDS ?? OUTAGE_MS / 1000) * 1000;
const WEBHOOK_CLOCK_SPEED = Math.max(1, RECEIVER_OUTAGE_MS / OUTAGE_MS);
/** Sends per second offered (spread over both api processes). */
const RATE = Number(process.env.FAULT_RATE ?? 100);
const SENDERS = 8;
/** The webhook sender's lease (src/webhooks/sender.ts DEFAULT_SENDER_OPTIONS.leaseMs). */
const WEBHOOK_LEASE_MS = 60_000;
const CREDITS = 1_000_000;
const FINAL = ["delivered", "failed", "cancelled"];

interface Send {
  i: number;
  text: string;
  at: number;
  outcome: "answered" | "refused" | "unanswered";
  id?: string;
  status?: number;
}

interface Phase {
  name: string;
  from: number;
  to: number;
  note: string;
}

interface Hook {
  webhookId: string;
  messageId: string;
  /** Message id and status: one event. */
  key: string;
  answer: number;
  at: number;
}

const t0 = Date.now();
const trace = (what: string) => {
  if (process.env.FAULT_TRACE) console.log(`${((Date.now() - t0) / 1000).toFixed(1)} s ${what}`);
};
/** The local TCP ports of a process's sockets (Linux: its fds' socket inodes in /proc/net/tcp). */
function localPorts(pid: number): Set<number> {
  const inodes = new Set<string>();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode) inodes.add(inode);
    } catch {
      // closed meanwhile
    }
  }
  const ports = new Set<number>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    if (!fs.existsSync(table)) continue;
    for (const line of fs.readFileSync(table, "utf8").split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length > 9 && inodes.has(fields[9]!)) ports.add(Number.parseInt(fields[1]!.split(":")[1]!, 16));
    }
  }
  return ports;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
  explain?: () => Promise<string>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`${what}: not reached within ${timeoutMs} ms${explain ? `\n${await explain()}` : ""}`);
    }
    await sleep(50);
  }
}

suite("faults under steady load (2 api + 2 worker on PostgreSQL, Redis, SMPP, webhooks)", () => {
  let postgres: ThrowawayPostgres;
  let redis: ThrowawayRedis;
  let store: Store;
  let dir: string;
  const smsc = new FakeSmsc();
  const receiver = new Receiver();
  const apis: ServerProcess[] = [];
  const workers: ServerProcess[] = [];
  let env: Record<string, string>;
  let pace: NodeJS.Timeout | undefined;
  let stopWebhookClock = false;

  beforeAll(async () => {
    [postgres, redis] = await Promise.all([startThrowawayPostgres(), startThrowawayRedis()]);
    store = await openStore({ engine: "postgres", url: postgres.url }, {});
    await store.migrate();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-faults-"));
    await smsc.start();
    smsc.reliableReceipts = true;
    smsc.receiptAfterMs = 20;
    await receiver.start();
    const carriers = path.join(dir, "carriers.json");
    fs.writeFileSync(
      carriers,
      JSON.stringify({
        connectors: [
          {
            name: "fault-smsc",
            type: "smpp",
            host: "127.0.0.1",
            port: smsc.port,
            system_id: smsc.systemId,
            password: smsc.password,
            // One bind per worker: a connection names its worker.
            connections: 1,
            window: 50,
          },
        ],
        routes: [{ route: "*", prefix: "", connectors: [{ name: "fault-smsc", weight: 1 }] }],
      }),
    );
    env = {
      DATABASE_URL: postgres.url,
      REDIS_URL: redis.url,
      SWITCHBOARD_CARRIERS_FILE: carriers,
      SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1",
    };
  }, 120_000);

  afterAll(async () => {
    clearInterval(pace);
    stopWebhookClock = true;
    await Promise.all([...apis, ...workers].map((s) => s.stop("SIGKILL")));
    await store?.close().catch(() => undefined);
    await smsc.stop().catch(() => undefined);
    await receiver.stop().catch(() => undefined);
    await redis?.destroy();
    await postgres?.destroy();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it(
    "keeps every promise through each fault",
    async () => {
      const deps = { store, clock: systemClock, actor: cliActor() };
      const account = await createAccountWithKey(deps, {
        username: "faults",
        password: "faults-password",
        credits: { sms: CREDITS },
        // Counted in Redis: the Redis fault shows what an outage does to the limit.
        rateLimit: 1_000_000,
      });
      await addSenderIdFor(deps, { username: "faults", sender: "SWBRD", approve: true });
      await store.db.updateTable("accounts").set({ dlt_scrubbing: 0 }).where("id", "=", account.id).execute();
      await setWebhookUrls(store, systemClock, account.id, { delivery_report: receiver.url });

      const hooks: Hook[] = [];
      let webhookAnswer = 200;
      receiver.answer = (request) => {
        const body = JSON.parse(request.body) as { message_id?: string; status?: string };
        hooks.push({
          webhookId: String(request.headers["webhook-id"]),
          messageId: String(body.message_id),
          key: `${body.message_id} ${body.status}`,
          answer: webhookAnswer,
          at: Date.now(),
        });
        return webhookAnswer;
      };

      const started = await Promise.all([
        startServer("api", env, { timeoutMs: 60_000 }),
        startServer("api", env, { timeoutMs: 60_000 }),
        startServer("worker", env, { timeoutMs: 60_000 }),
        startServer("worker", env, { timeoutMs: 60_000 }),
      ]);
      trace("processes started");
      apis.push(started[0]!, started[1]!);
      workers.push(started[2]!, started[3]!);
      await until(() => smsc.boundConnections >= 2, 20_000, "both workers bound to the SMSC");

      // ------------------------------------------------------------ the load
      const sends: Send[] = [];
      let stopLoad = false;
      let next = 0;
      let turn = 0;
      const sender = async () => {
        while (!stopLoad) {
          const began = Date.now();
          const i = next++;
          const send: Send = { i, text: `Fault ${i}`, at: began, outcome: "unanswered" };
          sends.push(send);
          const api = apis[turn++ % apis.length]!;
          try {
            const response = await fetch(`${api.url}/api/v2/sms/send`, {
              method: "POST",
              headers: { "content-type": "application/json", authorization: `Bearer ${account.api_key}` },
              body: JSON.stringify({
                sender_id: "SWBRD",
                recipient: `97${20_005_000 + (i % 4000)}`,
                message: send.text,
              }),
              signal: AbortSignal.timeout(15_000),
            });
            send.status = response.status;
            if (response.status === 200) {
              send.outcome = "answered";
              send.id = ((await response.json()) as { data: { message_id: string } }).data.message_id;
            } else {
              send.outcome = "refused";
              await response.arrayBuffer();
            }
          } catch {
            // The process died under the request, or never answered: not answered.
          }
          const pause = (SENDERS * 1000) / RATE - (Date.now() - began);
          if (pause > 0) await sleep(pause);
        }
      };
      const load = Array.from({ length: SENDERS }, sender);
      // The trace shows, every 5 s, what came and what the receiver saw.
      pace = process.env.FAULT_TRACE
        ? setInterval(() => {
            const since = Date.now() - 5000;
            const recent = hooks.filter((h) => h.at >= since);
            trace(
              `pace: ${sends.filter((s) => s.at >= since && s.outcome === "answered").length} sends answered, ${recent.length} webhook posts (${recent.filter((h) => h.answer !== 200).length} answered 500) in 5 s`,
            );
          }, 5000)
        : undefined;

      // ------------------------------------------------------------ the faults
      /**
       * Started again as the systemd units do (Restart=always): a process that cannot reach the
       * database while it starts (the PostgreSQL fault may come meanwhile) exits 1 and is started again.
       */
      const supervised = async (role: "api" | "worker"): Promise<ServerProcess> => {
        for (let attempt = 1; ; attempt++) {
          try {
            return await startServer(role, env, { timeoutMs: 60_000 });
          } catch (error) {
            if (attempt === 5) throw error;
            await sleep(1000);
          }
        }
      };
      // From the first receiver outage until the backlog drained, every retry the senders
      // schedule waits WEBHOOK_CLOCK_SPEED times less: the test shortens it once, when it first
      // sees it (a delivery at an attempt count), as a clock that much faster would.
      let webhookClock: Promise<void> | undefined;
      const runWebhookClock = async () => {
        const shortened = new Set<string>();
        while (!stopWebhookClock) {
          await sleep(250);
          const now = Date.now();
          try {
            const waiting = await store.db
              .selectFrom("webhook_deliveries")
              .select(["id", "attempts", "next_attempt_at"])
              .where("status", "=", "pending")
              .where("next_attempt_at", ">", now)
              .execute();
            const fresh = waiting.filter((d) => !shortened.has(`${d.id} ${d.attempts}`));
            for (let i = 0; i < fresh.length; i += 1000) {
              const values = fresh
                .slice(i, i + 1000)
                .map(
                  (d) =>
                    sql`(cast(${d.id} as bigint), cast(${d.attempts} as integer), cast(${Math.round(now + (d.next_attempt_at - now) / WEBHOOK_CLOCK_SPEED)} as bigint))`,
                );
              await sql`
                update webhook_deliveries as d set next_attempt_at = v.next
                  from (values ${sql.join(values)}) as v(id, attempts, next)
                 where d.id = v.id and d.attempts = v.attempts and d.status = 'pending'`.execute(store.db);
            }
            for (const d of fresh) shortened.add(`${d.id} ${d.attempts}`);
          } catch {
            // The database restarting: the next tick shortens them.
          }
        }
      };
      const phases: Phase[] = [];
      // What the webhook senders were doing, when posts stopped coming; each worker's log is kept in a file.
      const explainWebhooks = async () => {
        const now = Date.now();
        const deliveries = await store.db
          .selectFrom("webhook_deliveries")
          .select(["status", (eb) => eb.fn.countAll<number>().as("n"), (eb) => eb.fn.min("next_attempt_at").as("next")])
          .groupBy("status")
          .execute();
        const workerState = await Promise.all(
          workers.map(async (w) => {
            const file = path.join(os.tmpdir(), `switchboard-faults-worker-${w.pid}.log`);
            fs.writeFileSync(file, w.output());
            const metrics = await fetch(`${w.url}/metrics`, { signal: AbortSignal.timeout(5000) })
              .then((r) => r.text())
              .catch((error: Error) => error.message);
            return {
              pid: w.pid,
              alive: fs.existsSync(`/proc/${w.pid}`),
              log: file,
              webhookMetrics: metrics.split("\n").filter((line) => line.startsWith("switchboard_webhook")),
            };
          }),
        );
        return JSON.stringify(
          { now, lastHookAt: hooks.at(-1)?.at, hooks: hooks.length, deliveries, workerState },
          null,
          1,
        );
      };
      const restarts: Promise<void>[] = [];
      /** The connections of the workers killed, by connection id: when each closed. */
      const killedBinds = new Map<number, number>();
      const phase = async (name: string, inject: () => Promise<string>) => {
        const from = Date.now();
        trace(`${name}: injecting`);
        const note = await inject();
        trace(`${name}: ${note}`);
        phases.push({ name, from, to: Date.now(), note });
      };
      const answeredCount = () => sends.filter((s) => s.outcome === "answered").length;
      const steady = async (ms: number) => {
        const before = answeredCount();
        await sleep(ms);
        // The load goes on between faults (the gateway is not stuck).
        await until(() => answeredCount() > before, 15_000, "sends answered between faults");
      };

      await steady(1500);
      for (let round = 0; round < ROUNDS; round++) {
        await Promise.all(restarts);
        await until(() => smsc.boundConnections >= 2, 30_000, "both workers bound", explainWebhooks);
        await phase("kill -9 worker mid-submit", async () => {
          const since = smsc.submits.length;
          smsc.holding = true;
          // Submits awaiting their answer: the victim is the worker whose bind they came on.
          await until(() => smsc.submits.length - since >= 5, 15_000, "submits awaiting the SMSC's answer");
          const ports = new Set(smsc.submits.slice(since).map((s) => smsc.peerPorts.get(s.connection)));
          const index = workers.findIndex((w) => [...localPorts(w.pid)].some((port) => ports.has(port)));
          expect(index).toBeGreaterThanOrEqual(0);
          const killedAt = Date.now();
          const [victim] = workers.splice(index, 1);
          await victim!.stop("SIGKILL");
          // Kept beside the live workers' logs (explainWebhooks): what it did before it died.
          fs.writeFileSync(path.join(os.tmpdir(), `switchboard-faults-worker-${victim!.pid}.log`), victim!.output());
          await until(() => [...smsc.closed.values()].some((at) => at >= killedAt), 5_000, "the killed bind closed");
          for (const [connection, at] of smsc.closed) if (at >= killedAt) killedBinds.set(connection, at);
          const inFlight = smsc.submits
            .slice(since)
            .filter((s) => s.messageId === null && (smsc.closed.get(s.connection) ?? 0) >= killedAt).length;
          expect(inFlight).toBeGreaterThan(0);
          smsc.release();
          // Started again in the background: the next faults go on meanwhile.
          restarts.push(supervised("worker").then((w) => void workers.push(w)));
          // The killed worker's webhook deliveries wait for their 60 s lease: the clock moved on
          // for them (a live worker records its posts within a second, this one never will).
          await sleep(Math.max(0, killedAt + 3000 - Date.now()));
          const expired = await store.db
            .updateTable("webhook_deliveries")
            .set({ lease_until: Date.now() - 1 })
            .where("status", "=", "delivering")
            .where("lease_until", "<", Date.now() + WEBHOOK_LEASE_MS - 2000)
            .executeTakeFirst();
          return `${inFlight} submits awaiting the SMSC's answer at the kill; ${expired.numUpdatedRows} webhook leases expired by the clock`;
        });
        await steady(500);
        await phase("kill -9 api", async () => {
          const victim = apis.shift()!;
          await victim.stop("SIGKILL");
          restarts.push(supervised("api").then((a) => void apis.push(a)));
          return "killed; the other api answers while it starts again";
        });
        await steady(500);
        await phase("Redis stopped", async () => {
          const from = sends.length;
          await redis.stop();
          await sleep(OUTAGE_MS);
          const ready = await Promise.all(apis.map(async (api) => (await fetch(`${api.url}/readyz`)).status));
          const during = sends.slice(from);
          await redis.start();
          // Fail open: no send is refused for want of Redis, and the api processes stay ready.
          const refused = during.filter((s) => s.outcome === "refused");
          expect(refused.map((s) => s.status)).toEqual([]);
          expect(ready).toEqual(apis.map(() => 200));
          return `${during.length} sends during the outage, ${refused.length} refused: rate limits fail open`;
        });
        await steady(500);
        await phase("SMSC drops every connection", async () => {
          smsc.refuseConnections = true;
          smsc.dropAll();
          await sleep(OUTAGE_MS);
          smsc.refuseConnections = false;
          await until(() => smsc.boundConnections >= workers.length, 30_000, "the workers bound again");
          return "binds back";
        });
        await steady(500);
        await phase("PostgreSQL restarted", async () => {
          await postgres.stop("immediate");
          await sleep(500);
          await postgres.start();
          // Webhook posts whose recording the crash failed stay leased (60 s): the clock moves on
          // for those leased 2 s ago or more (a live sender records a post within a second).
          await sleep(3000);
          // This file's own pool may hold a connection the crash closed: its first use fails.
          const expire = () =>
            store.db
              .updateTable("webhook_deliveries")
              .set({ lease_until: Date.now() - 1 })
              .where("status", "=", "delivering")
              .where("lease_until", "<", Date.now() + WEBHOOK_LEASE_MS - 2000)
              .executeTakeFirst();
          const expired = await expire().catch(expire).catch(expire);
          return `stopped immediate (a crash), started; ${expired.numUpdatedRows} webhook leases expired by the clock`;
        });
        await steady(500);
        await phase("webhook receiver 500 then 200", async () => {
          const first = hooks.length;
          if (WEBHOOK_CLOCK_SPEED > 1) webhookClock ??= runWebhookClock();
          webhookAnswer = 500;
          await sleep(OUTAGE_MS);
          // Posts did come and were refused (the sender may be catching up after the previous fault).
          await until(() => hooks.length - first >= 20, 30_000, "webhook posts answered 500", explainWebhooks);
          webhookAnswer = 200;
          const clock = WEBHOOK_CLOCK_SPEED > 1 ? ` for ${RECEIVER_OUTAGE_MS / 1000} s of the senders' clock` : "";
          return `${hooks.length - first} posts answered 500${clock}`;
        });
        await steady(500);
      }
      await Promise.all(restarts);
      stopLoad = true;
      await Promise.all(load);

      // ------------------------------------------------------------ drain
      const answered = sends.filter((s) => s.outcome === "answered");
      const receivedOk = () => new Set(hooks.filter((h) => h.answer === 200).map((h) => h.key));
      const pending = async () => {
        const open = await store.db
          .selectFrom("messages")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("status", "not in", FINAL as never)
          .executeTakeFirstOrThrow();
        const hooksOpen = await store.db
          .selectFrom("webhook_deliveries")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("status", "in", ["pending", "delivering"])
          .executeTakeFirstOrThrow();
        return Number(open.n) + Number(hooksOpen.n);
      };
      const drainStarted = Date.now();
      await until(
        async () => {
          if ((await pending()) > 0) return false;
          const ok = receivedOk();
          return answered.every((s) => ok.has(`${s.id} delivered`));
        },
        // Retries back off (webhooks double their wait): after a long outage the last may come as late again.
        60_000 + 1.3 * OUTAGE_MS,
        "the backlog drained",
        async () => {
          const statuses = await store.db
            .selectFrom("messages")
            .select(["status", (eb) => eb.fn.countAll<number>().as("n")])
            .groupBy("status")
            .execute();
          const deliveries = await store.db
            .selectFrom("webhook_deliveries")
            .select(["status", (eb) => eb.fn.countAll<number>().as("n")])
            .groupBy("status")
            .execute();
          const stuck = await store.db
            .selectFrom("messages")
            .select(["id", "body", "status", "upstream_id", "attempts", "lease_until", "due_at", "submitted_at"])
            .where("status", "not in", FINAL as never)
            .limit(5)
            .execute();
          // What became of each stuck message's parts and of their receipts: which bind each
          // receipt went to, whether that bind was a killed worker's, and the answer it got.
          const stuckParts =
            stuck.length === 0
              ? []
              : await store.db
                  .selectFrom("message_parts")
                  .select(["message_id", "upstream_id", "status", "created_at"])
                  .where(
                    "message_id",
                    "in",
                    stuck.map((m) => m.id),
                  )
                  .execute();
          const receiptsOfStuck = stuckParts.map((part) => ({
            ...part,
            kept: null as unknown,
            receipts: smsc.receiptDeliveries
              .filter((r) => r.id === part.upstream_id)
              .map((r) => ({ ...r, killedBindClosedAt: killedBinds.get(r.connection) ?? null })),
          }));
          for (const part of receiptsOfStuck) {
            part.kept = await store.db
              .selectFrom("early_receipts")
              .selectAll()
              .where("upstream_id", "=", part.upstream_id)
              .executeTakeFirst()
              .catch(() => "no table");
          }
          const openDeliveries = await store.db
            .selectFrom("webhook_deliveries")
            .select([
              "id",
              "order_key",
              "status",
              "attempts",
              "next_attempt_at",
              "lease_until",
              "last_status",
              "last_error",
              "created_at",
            ])
            .where("status", "in", ["pending", "delivering"])
            .limit(20)
            .execute();
          const ok = receivedOk();
          return JSON.stringify({
            openDeliveries,
            phases,
            statuses,
            deliveries,
            stuck,
            receiptsOfStuck,
            notReceived: answered.filter((s) => !ok.has(`${s.id} delivered`)).length,
            receiptsOutstanding: smsc.receiptsOutstanding,
            submits: smsc.submits.length,
            bound: smsc.boundConnections,
            now: Date.now(),
            webhooks: await explainWebhooks(),
            workerErrors: workers.map((w) =>
              w
                .output()
                .split("\n")
                .filter((line) => /"level":(50|60)/.test(line))
                .map((line) => line.slice(0, 400))
                .slice(-8),
            ),
          });
        },
      );
      const drainMs = Date.now() - drainStarted;
      stopWebhookClock = true;
      await webhookClock;

      // ------------------------------------------------------------ invariants
      const messages = await store.db
        .selectFrom("messages")
        .select(["id", "body", "status", "upstream_id", "credits"])
        .where("account_id", "=", account.id)
        .execute();
      const byId = new Map(messages.map((m) => [m.id, m]));
      const byText = new Map<string, (typeof messages)[number][]>();
      for (const m of messages) byText.set(m.body, [...(byText.get(m.body) ?? []), m]);

      // Every answered send stored once, final (delivered: the SMSC accepts everything).
      const lost = answered.filter((s) => byId.get(s.id!)?.status !== "delivered");
      expect(lost.map((s) => [s.text, byId.get(s.id!)?.status ?? "missing"])).toEqual([]);
      // Each text was sent once by the client: stored at most once (an unanswered send may be stored).
      expect([...byText.values()].filter((rows) => rows.length > 1).map((rows) => rows[0]!.body)).toEqual([]);
      const failed = messages.filter((m) => m.status !== "delivered");
      expect(failed.map((m) => [m.body, m.status])).toEqual([]);

      // Final exactly once: one delivery-report event, one charge, per message.
      const events = (
        await store.db
          .selectFrom("webhook_deliveries")
          .select(["order_key", "webhook_id", "status", "payload"])
          .where("event", "=", "delivery_report")
          .where("redelivery_of", "is", null)
          .execute()
      ).map((e) => ({ ...e, key: `${e.order_key} ${(JSON.parse(e.payload) as { status: string }).status}` }));
      // One event per message and status it reached (submitted, delivered): a second final state would add one.
      const eventsPerKey = new Map<string, number>();
      for (const e of events) eventsPerKey.set(e.key, (eventsPerKey.get(e.key) ?? 0) + 1);
      expect([...eventsPerKey].filter(([, n]) => n !== 1)).toEqual([]);
      expect(messages.filter((m) => !eventsPerKey.has(`${m.id} delivered`)).map((m) => m.body)).toEqual([]);
      const webhookIdOf = new Map(events.map((e) => [e.key, e.webhook_id]));
      expect(events.filter((e) => e.status !== "delivered")).toEqual([]);
      const charges = await store.db
        .selectFrom("ledger_entries")
        .select(["ref", (eb) => eb.fn.countAll<number>().as("n")])
        .where("account_id", "=", account.id)
        .where("kind", "=", "debit")
        .groupBy("ref")
        .execute();
      expect(charges.filter((c) => Number(c.n) !== 1)).toEqual([]);
      expect(charges).toHaveLength(messages.length);

      // The ledger: balance == sum of entries == credits − charges + refunds.
      const balance = await walletBalance(store.db, account.id, "sms");
      const sum = await ledgerSum(store.db, account.id, "sms");
      const charged = messages.reduce((total, m) => total + m.credits, 0);
      const ledgerDifference = Math.abs(sum - balance) + Math.abs(balance - (CREDITS * 1000 - charged));
      expect(ledgerDifference).toBe(0);

      // Webhooks: every event received with a 2xx; every attempt of one event under one webhook-id.
      expect(hooks.filter((h) => webhookIdOf.get(h.key) !== h.webhookId)).toEqual([]);
      const ok = receivedOk();
      expect(events.filter((e) => !ok.has(e.key)).map((e) => e.key)).toEqual([]);
      const retried = new Set(hooks.filter((h) => h.answer !== 200).map((h) => h.key)).size;
      const twice = hooks.filter((h) => h.answer === 200).length - ok.size;
      const attemptsPerEvent = new Map<string, number>();
      for (const h of hooks) attemptsPerEvent.set(h.key, (attemptsPerEvent.get(h.key) ?? 0) + 1);
      // A loop, not Math.max(...values): a long run has more events than a call has room for arguments.
      let mostAttempts = 0;
      for (const n of attemptsPerEvent.values()) mostAttempts = Math.max(mostAttempts, n);

      // Submits to the SMSC: a message submitted more than once only when the gateway never
      // recorded the SMSC's answer to the other submits (their ids are not the stored one).
      const submitsByText = new Map<string, typeof smsc.submits>();
      for (const s of smsc.submits) submitsByText.set(s.text, [...(submitsByText.get(s.text) ?? []), s]);
      const duplicates: { text: string; at: number }[] = [];
      for (const [text, copies] of submitsByText) {
        const stored = byText.get(text)?.[0];
        expect(stored, `the SMSC got "${text}", which is not stored`).toBeDefined();
        expect(copies.filter((c) => c.messageId === stored!.upstream_id)).toHaveLength(1);
        for (const copy of copies) {
          if (copy.messageId === stored!.upstream_id) continue;
          duplicates.push({ text, at: copy.receivedAt });
        }
      }
      expect(messages.filter((m) => !submitsByText.has(m.body)).map((m) => m.body)).toEqual([]);

      // ------------------------------------------------------------ figures
      const inPhase = (at: number, p: Phase, nextPhase?: Phase) =>
        at >= p.from && at < (nextPhase?.from ?? p.to + 10_000);
      const lines = phases.map((p, index) => {
        const nextPhase = phases[index + 1];
        const during = sends.filter((s) => s.at >= p.from && s.at <= p.to);
        const dup = duplicates.filter((d) => inPhase(d.at, p, nextPhase));
        return (
          `fault "${p.name}": messages ${during.length} sent during it (${during.filter((s) => s.outcome === "answered").length} answered, ` +
          `${during.filter((s) => s.outcome === "refused").length} refused, ${during.filter((s) => s.outcome === "unanswered").length} unanswered), ` +
          `lost 0, duplicated ${dup.length}${dup.length ? " (submitted again: the gateway never recorded the SMSC's answer to the first submit)" : ""}, ` +
          `ledger difference ${ledgerDifference}; ${p.note}; ${((p.to - p.from) / 1000).toFixed(1)} s`
        );
      });
      const unansweredStored = sends.filter((s) => s.outcome !== "answered" && byText.has(s.text)).length;
      console.log(
        [
          `fault suite: ${phases.length} faults injected (${ROUNDS} round(s)), ${sends.length} sends, ${answered.length} answered, ` +
            `${messages.length} stored (${unansweredStored} of them unanswered: committed, answer lost), all delivered; lost 0; ` +
            `duplicated ${duplicates.length} submits, all of messages whose earlier submit's answer the gateway never recorded; ` +
            `ledger difference ${ledgerDifference}; ${retried} webhook events retried after a 500, ${twice} received with a 2xx more than once (redelivered after a lost record), at most ${mostAttempts} posts of one event, every event under one webhook-id; ` +
            `backlog drained ${(drainMs / 1000).toFixed(1)} s after the load stopped` +
            (WEBHOOK_CLOCK_SPEED > 1 ? ` (webhook retries on a clock ${WEBHOOK_CLOCK_SPEED.toFixed(0)}x fast)` : ""),
          ...lines,
        ].join("\n"),
      );
      expect(lost).toHaveLength(0);
    },
    240_000 + ROUNDS * (4 * OUTAGE_MS + 60_000),
  );
});
