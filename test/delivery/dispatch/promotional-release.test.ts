// A promotional SMS checked again when the dispatcher takes it a while after its acceptance
// (decision 0178), through the real server on both engines with a manual clock: a number put on
// the DND registry or the account's suppression list while the message was held fails it at
// release (dnd_blocked, recipient_opted_out), refunded once, one failed delivery_report; a send
// scheduled just before 21:00 IST and released after the promotional hours closed is scheduled
// again for the next opening instead of sent. The grace and the look-ups: the unit tests below.
import { DateTime } from "luxon";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { parseDailyWindow } from "../../../src/base/core/daily-window.js";
import type { MessageRow } from "../../../src/base/store/schema.js";
import { addSuppressionsFor } from "../../../src/channels/inbound/index.js";
import { promotionalRelease, RELEASE_GRACE_MS } from "../../../src/delivery/dispatch/index.js";
import { addDnd } from "../../../src/domain/accounts/index.js";
import { cliActor } from "../../../src/domain/audit/index.js";
import { setWebhookUrls } from "../../../src/domain/webhooks/settings.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, startTestGateway, type TestAccount, type TestGateway } from "../../helpers/gateway.js";
import { auditLedger } from "../../helpers/resellers.js";
import { balanceOf, FAST_SIMULATOR, sendSms, statusOf, waitForStatus } from "../../helpers/sms.js";

const IST = "Asia/Kolkata";
const at = (local: string) => DateTime.fromISO(local, { zone: IST }).toMillis();
const promotional = { sender_id: "PROMOTIONAL", route: "promotional", message: "Mega sale this weekend" };

/** Moves the clock on, 200 ms every 20 ms, while `wait` runs. */
async function ticking<T>(clock: ManualClock, wait: () => Promise<T>): Promise<T> {
  const ticker = setInterval(() => clock.advance(200), 20);
  try {
    return await wait();
  } finally {
    clearInterval(ticker);
  }
}

describeEachEngine("promotional SMS checked again at release", (engine) => {
  describe("DND and opt-outs since acceptance", () => {
    // 22:30 IST: held until 09:00.
    const clock = new ManualClock("2026-11-22T17:00:00Z");
    let t: TestGateway;
    let account: TestAccount;
    beforeAll(async () => {
      t = await startTestGateway(engine, {
        clock,
        env: { ...FAST_SIMULATOR, PROMO_HOURS: "09:00-21:00", SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1" },
      });
      account = await buildAccount(t, { credits: { sms: 100 } });
      await setWebhookUrls(t.db.store, t.clock, account.id, { delivery_report: "http://127.0.0.1:9/hook" });
    });
    afterAll(async () => {
      await auditLedger(t);
      await t.gateway.stop();
      await t.db.drop();
    });

    it("fails, refunds once and reports once a held message whose number went on DND or opted out meanwhile", async () => {
      const before = await balanceOf(t, account);
      const ids: string[] = [];
      for (const recipient of ["9876500001", "9876500002", "9876500003"]) {
        const sent = await sendSms(t, account, { ...promotional, recipient });
        expect(sent.status, sent.text).toBe(200);
        ids.push(sent.body.data.message_id);
      }
      const charged = await balanceOf(t, account);
      const price = (before - charged) / 3;
      expect(price).toBeGreaterThan(0);
      await addDnd(t.db.store, { clock: t.clock, actor: cliActor() }, ["9876500001"]);
      await addSuppressionsFor({ store: t.db.store, clock: t.clock, actor: cliActor() }, account.username, [
        "9876500002",
      ]);
      clock.set(new Date(at("2026-11-23T09:00:01")));
      const [dnd, optedOut, sent] = await ticking(clock, () =>
        Promise.all(ids.map((id) => waitForStatus(t, account, id, { timeoutMs: 20_000 }))),
      );
      expect([dnd.status, dnd.error.code]).toEqual(["failed", "dnd_blocked"]);
      expect([optedOut.status, optedOut.error.code]).toEqual(["failed", "recipient_opted_out"]);
      expect(sent.status).toBe("delivered");
      expect(await balanceOf(t, account)).toBeCloseTo(charged + 2 * price, 6);
      const failedEvents = await t.db.store.db
        .selectFrom("webhook_deliveries")
        .select("payload")
        .where("account_id", "=", account.id)
        .execute();
      for (const id of ids.slice(0, 2)) {
        const events = failedEvents.filter((row) => row.payload.includes(id) && row.payload.includes('"failed"'));
        expect(events, id).toHaveLength(1);
      }
    });
  });

  describe("the promotional hours closed before release", () => {
    // 20:50 IST, inside 09:00-21:00.
    const clock = new ManualClock("2026-11-22T15:20:00Z");
    let t: TestGateway;
    let account: TestAccount;
    beforeAll(async () => {
      t = await startTestGateway(engine, { clock, env: { ...FAST_SIMULATOR, PROMO_HOURS: "09:00-21:00" } });
      account = await buildAccount(t, { credits: { sms: 100 } });
    });
    afterAll(async () => {
      await auditLedger(t);
      await t.gateway.stop();
      await t.db.drop();
    });

    it("schedules again for the next opening a send scheduled for 20:59 and released at 21:02, then sends it", async () => {
      const sent = await sendSms(t, account, {
        ...promotional,
        recipient: "9876500004",
        schedule_at: "2026-11-22 20:59:00",
      });
      expect(sent.status, sent.text).toBe(200);
      const id = sent.body.data.message_id;
      clock.set(new Date(at("2026-11-22T21:02:00")));
      await t.gateway.workers!.housekeeping.afterRounds(2);
      // Released, taken by the dispatcher and scheduled again: due at the opening.
      await ticking(clock, async () => {
        for (let i = 0; i < 400; i++) {
          const row = await t.db.store.db
            .selectFrom("messages")
            .select(["status", "due_at"])
            .where("id", "=", id)
            .executeTakeFirstOrThrow();
          if (row.status === "scheduled" && row.due_at === at("2026-11-23T09:00:00")) return;
          expect(["scheduled", "queued"]).toContain(row.status);
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        throw new Error("not scheduled again");
      });
      const answer = await statusOf(t, account, id);
      expect(answer.body.data.status).toBe("scheduled");
      expect(Date.parse(answer.body.data.scheduled_at)).toBe(at("2026-11-23T09:00:00"));
      clock.set(new Date(at("2026-11-23T09:00:01")));
      const done = await ticking(clock, () => waitForStatus(t, account, id, { timeoutMs: 20_000 }));
      expect(done.status).toBe("delivered");
    });
  });
});

describe("the release check", () => {
  const window = parseDailyWindow("09:00-21:00")!;
  const row = (id: string, created: number, route = "promotional"): MessageRow =>
    ({ id, channel: "sms", route, account_id: 1, recipient: "9876500009", created_at: created }) as MessageRow;
  // No database: a check that would look anything up fails the test.
  const noDb = new Proxy(
    {},
    {
      get: () => {
        throw new Error("looked up");
      },
    },
  ) as never;

  it("looks nothing up for messages taken within the grace of their acceptance, nor for transactional ones", async () => {
    const now = at("2026-11-22T21:30:00");
    const rows = [row("a", now - RELEASE_GRACE_MS + 1), row("b", now - 3_600_000, "transactional")];
    const check = promotionalRelease(noDb, { hours: window, timeZone: IST });
    expect(await check(rows, now)).toEqual({ send: rows, refused: [], scheduledAgain: [] });
  });

  /** A database whose account has no hours of its own and whose DND registry is empty. */
  const emptyDb = (): never => {
    const query: Record<string, unknown> = new Proxy(
      {},
      {
        get: (_, name) => {
          if (name === "executeTakeFirst") return async () => ({ id: 1, promo_hours: null });
          if (name === "execute") return async () => [];
          if (name === "then") return undefined;
          return () => query;
        },
      },
    );
    return query as never;
  };

  it("sends a held message taken as the hours open, and schedules one again only when closed for a minute", async () => {
    const check = promotionalRelease(emptyDb(), { hours: window, timeZone: IST });
    const held = row("held", at("2026-11-22T22:30:00"));
    // Seconds after the opening: open, sent at once (it used to wait for the minute past 09:00).
    for (const taken of ["2026-11-23T09:00:00", "2026-11-23T09:00:10", "2026-11-23T09:00:59"]) {
      expect(await check([held], at(taken)), taken).toEqual({ send: [held], refused: [], scheduledAgain: [] });
    }
    // Within a minute of the close: still sent (the grace); past it, scheduled for the next opening.
    expect((await check([held], at("2026-11-23T21:00:30"))).send).toEqual([held]);
    expect(await check([held], at("2026-11-23T21:01:01"))).toEqual({
      send: [],
      refused: [],
      scheduledAgain: [{ id: "held", dueAt: at("2026-11-24T09:00:00") }],
    });
    // Before the opening, long closed: scheduled for it.
    expect((await check([held], at("2026-11-23T08:59:30"))).scheduledAgain).toEqual([
      { id: "held", dueAt: at("2026-11-23T09:00:00") },
    ]);
  });
});
