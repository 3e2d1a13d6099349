// The delivery rollups kept by the writers of messages (domain/messages/rollups.ts) after a mixed
// workload — accepts in commit groups (scheduled, transactional, promotional, international),
// submits with and without the claimed rows, retries, failures before the carrier (refunded),
// delivered and failed reports, expiry, a cancellation, WhatsApp's own steps — equal what the
// migration's statement counts from the messages table itself, row for row; a retention prune
// then leaves them as they were.
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createAccountWithKey } from "../../../src/app/admin/index.js";
import { ManualClock } from "../../../src/base/core/clock.js";
import { countStoredMessages as countAsFailed } from "../../../src/base/store/migrations/0035_delivery_rollups.js";
import { countStoredMessages, moveStoredRejections } from "../../../src/base/store/migrations/0064_rollups_rejected.js";
import { cliActor } from "../../../src/domain/audit/index.js";
import {
  Acceptor,
  applyDeliveryReports,
  cancelScheduled,
  claimDueMessages,
  deliverWhatsAppMessage,
  expireUnreported,
  failBeforeCarrier,
  failWhatsAppMessage,
  insertWhatsAppMessage,
  markSubmitted,
  pruneRetiredMessages,
  readWhatsAppMessage,
  requeueForRetry,
  type SendOrder,
} from "../../../src/domain/messages/index.js";
import { messageRow } from "../../../src/domain/messages/rows.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";

describeEachEngine("delivery rollups kept by the writers of messages", (engine) => {
  let db: TestDatabase;
  const clock = new ManualClock("2026-11-28T18:20:00Z");
  const accounts: number[] = [];
  beforeAll(async () => {
    db = await createTestDatabase(engine);
    for (const username of ["acme", "globex"]) {
      const account = await createAccountWithKey(
        { store: db.store, clock, actor: cliActor() },
        { username, password: `${username}-password`, credits: { sms: 1000, international: 1000 } },
      );
      accounts.push(account.id);
    }
  });
  afterAll(async () => db?.drop());

  const rollups = async () => {
    const rows = await db.store.db.selectFrom("delivery_rollups").selectAll().execute();
    return rows
      .map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === "string" ? v : Number(v)])))
      .filter((row) =>
        Object.entries(row).some(([k, v]) => !["span", "dim", "bucket", "account_id", "value"].includes(k) && v !== 0),
      )
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  };
  /** What the migration's statement counts from the messages table (rollups emptied first). */
  /** The rollups counted again from the stored messages (`statements`, by default the writers' rule in SQL). */
  const recounted = async (statements = [countStoredMessages(engine)]) => {
    const kept = await db.store.db.selectFrom("delivery_rollups").selectAll().execute();
    await db.store.db.deleteFrom("delivery_rollups").execute();
    for (const statement of statements) await sql.raw(statement).execute(db.store.db);
    const counted = await rollups();
    await db.store.db.deleteFrom("delivery_rollups").execute();
    for (let i = 0; i < kept.length; i += 100)
      await db.store.db
        .insertInto("delivery_rollups")
        .values(kept.slice(i, i + 100))
        .execute();
    return counted;
  };

  const order = (
    accountId: number,
    recipient: string,
    route: string,
    dueAt: number,
    status?: "scheduled",
  ): SendOrder => ({
    accountId,
    timeZone: "Asia/Kolkata",
    channel: "sms",
    wallet: route === "international" ? "international" : "sms",
    ...(status ? { status } : {}),
    drafts: [
      {
        recipient,
        sender: "SWBRD",
        body: "hi",
        encoding: "gsm7",
        segments: 1,
        flash: false,
        route,
        lane: route === "transactional" ? 0 : 1,
        credits: 1000,
        dueAt,
      },
    ],
  });

  it("counts what the messages table counts after a mixed workload, and keeps it through a prune", async () => {
    const { store } = db;
    const acceptor = new Acceptor(store, clock);
    const now = () => clock.now().getTime();
    const [acme = 0, globex = 0] = accounts;
    // Concurrent sends: one commit group of several accounts, routes and prefixes.
    const recipients = ["9876543210", "9812345678", "7012345678", "6000000001", "9876500000", "8123450002"];
    await Promise.all([
      ...recipients.map((r, i) =>
        acceptor.accept(order(i % 2 ? globex : acme, r, i % 3 ? "transactional" : "promotional", now())),
      ),
      acceptor.accept(order(acme, "+447700900123", "international", now())),
      acceptor.accept(order(acme, "9777777777", "transactional", now() + 86_400_000, "scheduled")),
      acceptor.accept(order(globex, "9777777778", "transactional", now() + 86_400_000, "scheduled")),
    ]);
    clock.advance(16 * 60_000);
    // A second group in the next quarter hour.
    await Promise.all(
      ["9811111111", "9822222222", "9833333333"].map((r) => acceptor.accept(order(acme, r, "transactional", now()))),
    );

    const claimed = await claimDueMessages(store, store.db, now(), 100);
    expect(claimed).toHaveLength(10);
    const [retried, failedEarly, refused, ...rest] = claimed;
    await store.transaction(async (trx) => {
      await requeueForRetry(trx, [
        { id: retried!.id, dueAt: now(), code: "throttled", message: "busy", attempts: 1, heldSince: null },
      ]);
      await failBeforeCarrier(store, trx, clock, [{ id: failedEarly!.id, code: "rejected", message: "no", at: now() }]);
      // A carrier's refusal at submit: the message keeps the connector that refused it.
      const refusal = { id: refused!.id, code: "rejected", message: "HTTP 404", at: now(), connector: "http-b" };
      // With the claimed rows, as the dispatcher passes them (their connector before).
      await failBeforeCarrier(store, trx, clock, [refusal], undefined, [refused!]);
      const kept = await trx
        .selectFrom("messages")
        .select("connector")
        .where("id", "=", refused!.id)
        .executeTakeFirst();
      expect(kept?.connector).toBe("http-b");
      // Half with the claimed rows (the dispatcher's way), half read from the table.
      const half = Math.floor(rest.length / 2);
      const submits = rest.map((m, i) => ({
        id: m.id,
        connector: i % 2 ? "smpp-a" : "http-b",
        upstreamId: `U${i}`,
        at: now(),
        attempts: 1,
      }));
      await markSubmitted(store, trx, submits.slice(0, half), rest.slice(0, half));
      await markSubmitted(store, trx, submits.slice(half));
    });
    const [again] = await claimDueMessages(store, store.db, now(), 100);
    expect(again?.id).toBe(retried!.id);
    await store.transaction((trx) =>
      markSubmitted(
        store,
        trx,
        [{ id: retried!.id, connector: "smpp-a", upstreamId: "R1", at: now(), attempts: 2 }],
        [again!],
      ),
    );

    clock.advance(3_000);
    await store.transaction((trx) =>
      applyDeliveryReports(store, trx, [
        { connector: "http-b", upstreamId: "U0", status: "delivered", at: now() },
        { connector: "smpp-a", upstreamId: "U1", status: "failed", at: now(), code: "UNDELIV" },
        { connector: "http-b", upstreamId: "U2", status: "failed", at: now() },
        { connector: "smpp-a", upstreamId: "R1", status: "delivered", at: now() + 90_000 },
        { connector: "http-b", upstreamId: "U4", status: "delivered", at: now() + 500 },
      ]),
    );
    await store.transaction((trx) =>
      expireUnreported(store, trx, {
        connector: "smpp-a",
        submittedBefore: now() + 1,
        now: now(),
        message: "expired",
        limit: 10,
      }),
    );
    const scheduled = await store.db
      .selectFrom("messages")
      .select("id")
      .where("recipient", "=", "9777777777")
      .executeTakeFirstOrThrow();
    await store.transaction((trx) => cancelScheduled(store, trx, clock, acme, { queueId: scheduled.id }));

    // WhatsApp's own steps: sent, delivered, read (a second one failed after it was sent).
    for (const [id, recipient] of [
      ["w1", "919800000001"],
      ["w2", "919800000002"],
    ] as const) {
      await store.transaction((trx) =>
        insertWhatsAppMessage(
          store,
          trx,
          messageRow({
            id,
            account_id: globex,
            channel: "whatsapp",
            broadcast_id: id,
            recipient,
            sender: "15550001111",
            body: "hi",
            route: "whatsapp",
            lane: 0,
            wallet: "whatsapp",
            credits: 1000,
            status: "sent",
            submitted_at: now(),
            due_at: now(),
            created_at: now(),
          }),
        ),
      );
    }
    clock.advance(2_000);
    await store.transaction((trx) => deliverWhatsAppMessage(store, trx, "w1", now()));
    await store.transaction((trx) => readWhatsAppMessage(store, trx, "w1", now() + 1000));
    await store.transaction((trx) =>
      failWhatsAppMessage(store, trx, "w2", { code: "131026", message: "undeliverable", at: now() }),
    );

    const kept = await rollups();
    expect(kept.length).toBeGreaterThan(50);
    expect(await recounted()).toEqual(kept);
    // Migration 0064 on rollups counted by 0035's rule (a rejection as sent and failed): the same.
    expect(await recounted([countAsFailed(engine), moveStoredRejections(engine)])).toEqual(kept);
    const sum = (column: string, dim = "", value?: string) =>
      kept
        .filter((row) => row.span === "d" && row.dim === dim && (value === undefined || row.value === value))
        .reduce((n, row) => n + Number(row[column]), 0);
    // 12 accepted and 2 WhatsApp, one cancelled, two refused before a carrier carried them (rejected,
    // not sent): 11 sent; one submitted and one scheduled still pending.
    const counts = ["sent", "delivered", "failed", "pending", "rejected"];
    expect(counts.map((column) => sum(column))).toEqual([11, 4, 5, 2, 2]);
    // The carrier that refused one at submit: a rejection, not a message it sent and failed.
    expect(counts.map((column) => sum(column, "connector", "http-b"))).toEqual([4, 2, 1, 1, 1]);
    expect(sum("rejected", "error_code", "rejected")).toBe(2);

    // A prune of everything retired leaves the rollups as they were.
    clock.advance(40 * 86_400_000);
    expect(await pruneRetiredMessages(store, now(), 500, async () => undefined)).toBeGreaterThan(0);
    expect(await rollups()).toEqual(kept);
  });
});
