// A price card replaced in chunks (audit F8, decision 0146), on both engines: a reader between
// the chunks sees the old card whole, never part of the new one; a failure in a late chunk, and
// an upload that stops for good (a process that died), leave the old card and no rows any reader
// sees; a later upload removes a dead one's rows; a card changed meanwhile answers 409. Names
// compare without case (audit F4), and a delete refuses a card an account is priced by.
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { isGatewayError } from "../../../src/base/core/errors.js";
import { loadConfig } from "../../../src/base/runtime/config.js";
import { openStore } from "../../../src/base/store/store.js";
import {
  createAccount,
  deletePriceCard,
  findPriceCard,
  listPriceCards,
  PriceBook,
  type PriceRow,
  priceCardRows,
  replacePriceCard,
  setAccountPriceCard,
} from "../../../src/domain/accounts/index.js";
import { createEmptyDatabase, earlyAccountRow, migrateTo } from "../../helpers/empty-database.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";

/** `n` rows of route T, prefixes 91700000…, all at `price` milli-credits. */
function rows(n: number, price: number): PriceRow[] {
  return Array.from({ length: n }, (_, i) => ({
    channel: "sms" as const,
    route: "T",
    prefix: `91${700000 + i}`,
    price,
    effective_from: null,
  }));
}

const prices = (card: PriceRow[] | undefined) => [...new Set(card?.map((row) => row.price))];

describeEachEngine("price cards written in chunks", (engine) => {
  const clock = new ManualClock("2026-11-22T06:30:00Z");
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
  });
  afterAll(async () => db.drop());

  const stored = async (card: string) =>
    Number(
      (
        await db.store.db
          .selectFrom("price_card_rows")
          .select(db.store.db.fn.countAll<number>().as("n"))
          .where("card", "=", card)
          .executeTakeFirstOrThrow()
      ).n,
    );

  it("shows a reader between the chunks the old card whole, then the new one", async () => {
    const { store } = db;
    await replacePriceCard(store, clock, "big", rows(1000, 100));
    const account = await createAccount(store, clock, { username: "bigbuyer", password: "password-1" });
    await setAccountPriceCard(store, clock, "bigbuyer", "big");
    // A new book each time: what a process that has not read the card yet would price by.
    const priceNow = async () =>
      (await new PriceBook(store).cardFor(account.id)).price("sms", "T", "91700005123", clock.now().getTime()).price;
    const seen: { written: number; prices: number[]; count: number; listed: number; price: number }[] = [];
    await replacePriceCard(store, clock, "big", rows(1200, 200), undefined, {
      chunkRows: 250,
      afterChunk: async (written) => {
        const card = await priceCardRows(store.db, "big");
        const listed = (await listPriceCards(store.db)).find((c) => c.name === "big")!.rows;
        seen.push({ written, prices: prices(card), count: card!.length, listed, price: await priceNow() });
      },
    });
    expect(seen.map((s) => s.written)).toEqual([250, 500, 750, 1000, 1200]);
    for (const s of seen) expect(s).toMatchObject({ prices: [100], count: 1000, listed: 1000, price: 100 });
    const after = await priceCardRows(store.db, "big");
    expect([after!.length, ...prices(after)]).toEqual([1200, 200]);
    expect(await priceNow()).toBe(200);
    // The old generation is gone once the new one answers.
    expect(await stored("big")).toBe(1200);
  });

  it("never writes a card again under its live generation, whose rows go at the switch (a clock that stands still)", async () => {
    const { store } = db;
    // The same millisecond and the same random part: the generation the card has now.
    const real = Math.random;
    let calls = 0;
    const random = vi.spyOn(Math, "random").mockImplementation(() => (calls++ < 100 ? 0.5 : real()));
    try {
      await replacePriceCard(store, clock, "still", rows(3, 100));
      await replacePriceCard(store, clock, "still", rows(3, 300));
    } finally {
      random.mockRestore();
    }
    const card = await priceCardRows(store.db, "still");
    expect([card!.length, ...prices(card)]).toEqual([3, 300]);
    expect(await stored("still")).toBe(3);
  });

  it("lets one of two uploads that drew the same generation own it: the other draws again (migration 0071)", async () => {
    const { store } = db;
    // Both uploads in the same millisecond with the same random part, the second while the
    // first is between its chunks: before places were unique, both wrote under one generation,
    // the second switched to a card mixing both, and the first's clean-up then emptied it.
    const real = Math.random;
    let calls = 0;
    const random = vi.spyOn(Math, "random").mockImplementation(() => (calls++ < 2 ? 0.5 : real()));
    let second: Promise<number> | undefined;
    try {
      const first = replacePriceCard(store, clock, "twins", rows(600, 100), undefined, {
        chunkRows: 200,
        afterChunk: async (written) => {
          if (written === 200) {
            second = replacePriceCard(store, clock, "twins", rows(600, 300), undefined, { chunkRows: 200 });
            await second;
          }
        },
      });
      const refused = await first.catch((error) => error);
      expect(isGatewayError(refused) && refused.code).toBe("conflict");
      expect(await second).toBe(600);
    } finally {
      random.mockRestore();
    }
    expect(calls).toBeGreaterThanOrEqual(3);
    const card = await priceCardRows(store.db, "twins");
    expect([card!.length, ...prices(card)]).toEqual([600, 300]);
    expect(await stored("twins")).toBe(600);
  });

  it("leaves the old card and no written rows when a late chunk fails", async () => {
    const { store } = db;
    await replacePriceCard(store, clock, "late", rows(600, 100));
    const bad = rows(900, 300);
    bad[850] = { ...bad[850]!, price: null as unknown as number }; // refused by the database, in the 4th chunk
    const failed = await replacePriceCard(store, clock, "late", bad, undefined, { chunkRows: 250 }).catch((e) => e);
    expect(failed).toBeInstanceOf(Error);
    const card = await priceCardRows(store.db, "late");
    expect([card!.length, ...prices(card)]).toEqual([600, 100]);
    expect(await stored("late")).toBe(600);
    // A new card whose first upload fails is no card at all.
    await replacePriceCard(store, clock, "fresh", bad, undefined, { chunkRows: 250 }).catch(() => undefined);
    expect(await priceCardRows(store.db, "fresh")).toBeUndefined();
    expect((await listPriceCards(store.db)).map((c) => c.name)).not.toContain("fresh");
    expect(await stored("fresh")).toBe(0);
  });

  it("hides a dead upload's rows from every reader, and a later upload removes them", async () => {
    const { store } = db;
    await replacePriceCard(store, clock, "dead", rows(300, 100));
    let reached: () => void = () => undefined;
    const stopped = new Promise<void>((resolve) => {
      reached = resolve;
    });
    // The upload stops for good after its second chunk, as a process killed there.
    void replacePriceCard(store, clock, "dead", rows(1000, 500), undefined, {
      chunkRows: 200,
      afterChunk: (written) => {
        if (written < 400) return;
        reached();
        return new Promise<void>(() => undefined);
      },
    });
    await stopped;
    expect(await stored("dead")).toBe(700);
    const card = await priceCardRows(store.db, "dead");
    expect([card!.length, ...prices(card)]).toEqual([300, 100]);
    expect((await listPriceCards(store.db)).find((c) => c.name === "dead")?.rows).toBe(300);
    // An hour later, the next upload of the card removes the dead one's rows.
    clock.advance(2 * 60 * 60 * 1000);
    await replacePriceCard(store, clock, "dead", rows(50, 700));
    expect(await stored("dead")).toBe(50);
    expect(prices(await priceCardRows(store.db, "dead"))).toEqual([700]);
  });

  it("refuses an upload whose card changed while it was written", async () => {
    const { store } = db;
    await replacePriceCard(store, clock, "race", rows(10, 100));
    const slow = replacePriceCard(store, clock, "race", rows(400, 200), undefined, {
      chunkRows: 100,
      afterChunk: async (written) => {
        if (written === 100) await replacePriceCard(store, clock, "race", rows(20, 300));
      },
    });
    const refused = await slow.catch((e) => e);
    expect(isGatewayError(refused) && refused.code).toBe("conflict");
    expect(prices(await priceCardRows(store.db, "race"))).toEqual([300]);
    expect(await stored("race")).toBe(20);
  });

  it("compares names without case, stores new ones in lower case, and deletes only a card nobody uses", async () => {
    const { store } = db;
    await replacePriceCard(store, clock, "India-Retail", rows(5, 100));
    await replacePriceCard(store, clock, "INDIA-RETAIL", rows(7, 200));
    expect((await listPriceCards(store.db)).filter((c) => c.name.toLowerCase() === "india-retail")).toMatchObject([
      { name: "india-retail", rows: 7 },
    ]);
    await createAccount(store, clock, { username: "shopper", password: "password-1" });
    expect(await setAccountPriceCard(store, clock, "shopper", "India-RETAIL")).toBe("india-retail");
    const used = await deletePriceCard(store, clock, "INDIA-retail").catch((e) => e);
    expect(isGatewayError(used) && [used.code, used.message]).toEqual([
      "conflict",
      'The price card "india-retail" prices 1 account: move it to another card first.',
    ]);
    await setAccountPriceCard(store, clock, "shopper", null);
    expect(await deletePriceCard(store, clock, "India-Retail")).toBe("india-retail");
    expect(await findPriceCard(store.db, "india-retail")).toBeUndefined();
    expect(await stored("india-retail")).toBe(0);
    const gone = await deletePriceCard(store, clock, "india-retail").catch((e) => e);
    expect(isGatewayError(gone) && gone.code).toBe("not_found");
  });

  it("folds card names to lower case in migration 0061 where no other card has that name", async () => {
    const empty = await createEmptyDatabase(engine);
    const store = await openStore(loadConfig({ DATABASE_URL: empty.url }).database);
    try {
      await migrateTo(store, engine, "0060_message_dlt_chain_scrub");
      for (const name of ["Retail", "Twin", "twin"]) {
        await sql`insert into price_cards (name, created_at, updated_at) values (${name}, 1, 1)`.execute(store.db);
        await sql`insert into price_card_rows (card, channel, route, prefix, price) values (${name}, 'sms', '*', '91', 200)`.execute(
          store.db,
        );
      }
      await store.db
        .insertInto("accounts")
        .values({ ...earlyAccountRow("folded"), price_card: "Retail" } as never)
        .execute();
      await store.migrate();
      const names = (await listPriceCards(store.db)).map((c) => [c.name, c.rows]);
      expect(names).toEqual([
        ["default", 0],
        ["Twin", 1],
        ["retail", 1],
        ["twin", 1],
      ]);
      const account = await store.db
        .selectFrom("accounts")
        .select("price_card")
        .where("username", "=", "folded")
        .executeTakeFirstOrThrow();
      expect(account.price_card).toBe("retail");
      expect((await findPriceCard(store.db, "RETAIL"))?.name).toBe("retail");
      expect((await findPriceCard(store.db, "twin"))?.name).toBe("twin");
      const twins = await findPriceCard(store.db, "TWIN").catch((e) => e);
      expect(isGatewayError(twins) && twins.message).toBe(
        'Price cards "Twin" and "twin" differ only in case: name one exactly.',
      );
    } finally {
      await store.close();
      await empty.drop();
    }
  });
});
