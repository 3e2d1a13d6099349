// Promotional hours (issue 40, item 4): a promotional send (routes P and PS) outside the daily
// window of the recipients' time is accepted, charged and held until the window opens (the send
// answer stays the spec's `queued`, its estimated_delivery after the opening), released then,
// and cancellable with a refund like a scheduled send; transactional and international sends
// are never held. The gateway runs on a manual clock set to 22:30 IST, outside 09:00-21:00.
import { DateTime } from "luxon";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { formatDailyWindow, parseDailyWindow } from "../../../src/base/core/daily-window.js";
import { releaseAt } from "../../../src/base/core/promo-hours.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, startTestGateway, type TestAccount, type TestGateway } from "../../helpers/gateway.js";
import { credentials, legacy } from "../../helpers/legacy.js";
import { auditLedger } from "../../helpers/resellers.js";
import { balanceOf, FAST_SIMULATOR, keyOf, statusOf, waitForStatus } from "../../helpers/sms.js";

const IST = "Asia/Kolkata";
const at = (local: string) => DateTime.fromISO(local, { zone: IST }).toMillis();

describe("promotional hours: the window", () => {
  const window = parseDailyWindow("09:00-21:00")!;

  it("releases a time inside the window at once and one outside it at the next opening", () => {
    const cases: [string, string][] = [
      ["2026-11-29T08:59:59", "2026-11-29T09:00:00"],
      ["2026-11-29T09:00:00", "2026-11-29T09:00:00"],
      ["2026-11-29T20:59:59", "2026-11-29T20:59:59"],
      ["2026-11-29T21:00:00", "2026-11-30T09:00:00"],
      ["2026-11-29T23:59:00", "2026-11-30T09:00:00"],
      ["2026-11-30T00:00:00", "2026-11-30T09:00:00"],
      ["2026-12-31T22:00:00", "2027-01-01T09:00:00"],
    ];
    for (const [asked, released] of cases) expect(releaseAt(window, IST, at(asked)), asked).toBe(at(released));
    const always = parseDailyWindow("00:00-24:00")!;
    expect(releaseAt(always, IST, at("2026-11-29T23:59:59"))).toBe(at("2026-11-29T23:59:59"));
  });

  it("reads windows as written and refuses what is not one", () => {
    expect(formatDailyWindow(parseDailyWindow(" 9:00-21:00".replace(" 9", "09"))!)).toBe("09:00-21:00");
    expect(formatDailyWindow(parseDailyWindow("00:00-24:00")!)).toBe("00:00-24:00");
    for (const bad of ["21:00-09:00", "09:00-09:00", "9:00-21:00", "09:00-24:01", "25:00-26:00", "09:00", "", "x"]) {
      expect(parseDailyWindow(bad), bad).toBeUndefined();
    }
  });
});

describeEachEngine("promotional hours", (engine) => {
  // 22:30 IST: outside 09:00-21:00. The next opening is 09:00 the next morning.
  const clock = new ManualClock("2026-11-22T17:00:00Z");
  const opening = at("2026-11-23T09:00:00");
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

  const v2 = (route: string) =>
    call(t, "POST", "/api/v2/sms/send", {
      headers: keyOf(account),
      json: {
        sender_id: route === "transactional" ? "SWBRD" : "PROMOTIONAL",
        recipient: "9876543210",
        message: "Sale today: 20% off",
        route,
      },
    });
  const dueOf = async (id: string) =>
    (await t.db.store.db.selectFrom("messages").select("due_at").where("id", "=", id).executeTakeFirstOrThrow()).due_at;

  it("holds promotional sends on every family until the window opens, charged, and never transactional ones", async () => {
    const promo = await v2("promotional");
    expect(promo.status, promo.text).toBe(200);
    expect(promo.body.data.status).toBe("queued");
    expect(Date.parse(promo.body.data.estimated_delivery)).toBeGreaterThanOrEqual(opening);
    expect(promo.body.data.credits).toBe(1);
    const id = promo.body.data.message_id;
    expect(await dueOf(id)).toBe(opening);
    const status = (await statusOf(t, account, id)).body.data;
    expect(status.status).toBe("scheduled");
    expect(Date.parse(status.scheduled_at)).toBe(opening);

    const viaLegacy = await legacy(t, "/httpapi/send", {
      ...credentials(account),
      sender_id: "PROMOTIONAL",
      route: "P",
      mobile: "9876543211",
      message: "Sale today: 20% off",
    });
    expect(viaLegacy.status, viaLegacy.text).toBe(200);
    const legacyRow = await t.db.store.db
      .selectFrom("messages")
      .select(["due_at", "status"])
      .where("account_id", "=", account.id)
      .where("recipient", "like", "%9876543211")
      .executeTakeFirstOrThrow();
    expect(legacyRow).toEqual({ due_at: opening, status: "scheduled" });

    const transactional = await v2("transactional");
    expect(transactional.status, transactional.text).toBe(200);
    expect(await dueOf(transactional.body.data.message_id)).toBe(clock.now().getTime());
    expect(await balanceOf(t, account)).toBe(97);
  });

  it("cancels a held promotional send with a refund, as a scheduled one", async () => {
    const before = await balanceOf(t, account);
    const promo = await v2("promotional");
    expect(promo.status).toBe(200);
    expect(await balanceOf(t, account)).toBe(before - 1);
    const cancelled = await call(t, "DELETE", `/api/v2/sms/schedule/${promo.body.data.message_id}`, {
      headers: keyOf(account),
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(await balanceOf(t, account)).toBe(before);
  });

  it("follows the account's own window inside the operator's, set and cleared by the operator, and refuses a bad one", async () => {
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const patch = (json: Record<string, unknown>) =>
      call(t, "PATCH", `/admin/api/accounts/${account.username}`, {
        headers: { authorization: `Bearer ${operator.apiKey}` },
        json,
      });
    for (const bad of ["21:00-09:00", "9-21", "09:00-24:30", 42]) {
      const refused = await patch({ promo_hours: bad });
      expect(refused.status, String(bad)).toBe(400);
      expect(refused.body.error.code, String(bad)).toBe("invalid_request");
    }
    // An account's window only narrows the operator's 09:00-21:00 (decision 0124).
    for (const wider of ["06:00-23:30", "22:00-23:00", "08:59-20:00", "00:00-24:00"]) {
      const refused = await patch({ promo_hours: wider });
      expect(refused.status, wider).toBe(400);
      expect(refused.body.error).toMatchObject({ code: "invalid_request", field: "promo_hours" });
      expect(refused.body.message).toContain(
        `promo_hours "${wider}" is not inside the operator's promotional window 09:00-21:00`,
      );
    }
    const set = await patch({ promo_hours: "10:00-20:00" });
    expect(set.status, set.text).toBe(200);
    expect(set.body.data.promo_hours).toBe("10:00-20:00");
    // The change drops the account's remembered rules at once: the next send waits for 10:00.
    const narrowed = await v2("promotional");
    expect(narrowed.status, narrowed.text).toBe(200);
    expect(await dueOf(narrowed.body.data.message_id)).toBe(at("2026-11-23T10:00:00"));
    await call(t, "DELETE", `/api/v2/sms/schedule/${narrowed.body.data.message_id}`, { headers: keyOf(account) });
    // A wider window stored before windows were checked is cut to the operator's at send time.
    await t.db.store.db
      .updateTable("accounts")
      .set({ promo_hours: "06:00-23:30" })
      .where("id", "=", account.id)
      .execute();
    // Sent back unchanged (the console's form sends every field), it is kept; the change drops the cached rules.
    const kept = await patch({ promo_hours: "06:00-23:30", flood_limit: 0 });
    expect(kept.status, kept.text).toBe(200);
    expect(kept.body.data.promo_hours).toBe("06:00-23:30");
    const wide = await v2("promotional");
    expect(wide.status, wide.text).toBe(200);
    expect(await dueOf(wide.body.data.message_id)).toBe(opening);
    const cleared = await patch({ promo_hours: null });
    expect(cleared.body.data.promo_hours).toBeNull();
  });

  it("releases held sends when the window opens", async () => {
    const held = await t.db.store.db
      .selectFrom("messages")
      .select("id")
      .where("account_id", "=", account.id)
      .where("status", "=", "scheduled")
      .execute();
    expect(held.length).toBeGreaterThanOrEqual(2);
    clock.set(new Date(opening - 1000));
    const ticker = setInterval(() => clock.advance(200), 20);
    try {
      for (const { id } of held) {
        const report = await waitForStatus(t, account, id, { timeoutMs: 15_000 });
        expect(report.status).toBe("delivered");
      }
    } finally {
      clearInterval(ticker);
    }
    const submitted = await t.db.store.db
      .selectFrom("messages")
      .select("submitted_at")
      .where(
        "id",
        "in",
        held.map((row) => row.id),
      )
      .execute();
    for (const row of submitted) expect(row.submitted_at!).toBeGreaterThanOrEqual(opening);
  });
});
