// A real local HTTP receiver for webhook tests: records every request, answers what the test
// says (a status, or never), and can be stopped and restarted on the same port. Also the
// helpers every webhook test file uses: receivers stopped after each test, polling, and
// signature verification by the standardwebhooks package.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterEach } from "vitest";
import type { Store } from "../../../src/base/store/store.js";
import { WEBHOOKS_QUEUED } from "../../../src/domain/webhooks/outbox.js";

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export type Answer = number | "hang";

export class Receiver {
  readonly received: Received[] = [];
  answer: (request: Received, index: number) => Answer = () => 200;
  private server: http.Server | undefined;
  private readonly sockets = new Set<import("node:net").Socket>();
  port = 0;
  /**
   * Down while true: every connection is closed as it comes, before a request is read. The port
   * stays bound (a stopped receiver started again on its port found it taken by another process).
   */
  down = false;

  async start(port = 0): Promise<this> {
    this.server = http.createServer((req, res) => {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (chunk: string) => {
        body += chunk;
      });
      req.on("end", () => {
        const entry = { headers: req.headers, body, at: Date.now() };
        this.received.push(entry);
        const answer = this.answer(entry, this.received.length - 1);
        if (answer === "hang") return;
        res.writeHead(answer, { "content-type": "text/plain" }).end("ok");
      });
    });
    this.server.on("connection", (socket) => {
      if (this.down) {
        socket.destroy();
        return;
      }
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server!.listen(port, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }

  bodies(): Record<string, unknown>[] {
    return this.received.map((r) => JSON.parse(r.body) as Record<string, unknown>);
  }
}

const started: Receiver[] = [];

/** A started receiver, stopped after the test (call useReceivers() once per file). */
export async function receiver(): Promise<Receiver> {
  const r = await new Receiver().start();
  started.push(r);
  return r;
}

export function useReceivers(): void {
  afterEach(async () => {
    for (const r of started.splice(0)) await r.stop();
  });
}

/**
 * receiver() for the suite it is called in alone: each started receiver is stopped after the
 * suite's test that started it, not after another suite's running at the same time
 * (describeEnginesTogether), as useReceivers() would.
 */
export function suiteReceivers(): () => Promise<Receiver> {
  const mine: Receiver[] = [];
  afterEach(async () => {
    for (const r of mine.splice(0)) await r.stop();
  });
  return async () => {
    const r = await new Receiver().start();
    mine.push(r);
    return r;
  };
}

export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not reached in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Resolves once the outbox holds nothing for `url` still to send (pending or being sent): every
 * event written for it so far has reached the receiver or failed for good. The outbox row is
 * written in the transaction of the change it reports, so once that change is visible, a test
 * waits here instead of sleeping to show that no further request is on its way.
 */
export async function outboxSettled(store: Store, url: string, timeoutMs = 10_000): Promise<void> {
  await until(async () => {
    const open = await store.db
      .selectFrom("webhook_deliveries")
      .select("id")
      .where("url", "=", url)
      .where("status", "in", ["pending", "delivering"])
      .executeTakeFirst();
    return open === undefined;
  }, timeoutMs);
}

/**
 * Once a delivery to `url` has failed an attempt and waits for its retry, moves that retry to now
 * and wakes the sender, as a clock past the back-off would (the fault suite does the same): for
 * a test of what the retry brings, not of its schedule, which delivery.test.ts tests. The first
 * retry is 5 s away by default; the sender then tries at once. Resolves as well when a retry
 * came meanwhile (a delivery of `url` attempted twice).
 */
export async function retryNow(store: Store, url: string, timeoutMs = 10_000): Promise<void> {
  await until(async () => {
    const now = Date.now();
    const moved = await store.db
      .updateTable("webhook_deliveries")
      .set({ next_attempt_at: now })
      .where("url", "=", url)
      .where("status", "=", "pending")
      .where("attempts", ">", 0)
      .where("next_attempt_at", ">", now)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) > 0) return true;
    const retried = await store.db
      .selectFrom("webhook_deliveries")
      .select("id")
      .where("url", "=", url)
      .where("attempts", ">", 1)
      .executeTakeFirst();
    return retried !== undefined;
  }, timeoutMs);
  await store.signals.notify(WEBHOOKS_QUEUED);
}

/** Verified by the standardwebhooks package: throws when the signature or timestamp is wrong. */
export function verify(secret: string, r: { headers: Record<string, unknown>; body: string }): unknown {
  return new Webhook(secret).verify(r.body, {
    "webhook-id": String(r.headers["webhook-id"]),
    "webhook-timestamp": String(r.headers["webhook-timestamp"]),
    "webhook-signature": String(r.headers["webhook-signature"]),
  });
}
