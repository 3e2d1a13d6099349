import { afterAll, beforeAll, expect, it } from "vitest";
import { systemClock } from "../../../src/base/core/clock.js";
import { toMilli, type Wallet } from "../../../src/base/core/credits.js";
import { isGatewayError } from "../../../src/base/core/errors.js";
import { openStore, type Store } from "../../../src/base/store/store.js";
import {
  createAccount,
  creditWallet,
  ledgerSum,
  transferCredits,
  tryDebitWallet,
  walletBalance,
} from "../../../src/domain/accounts/index.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";

const clock = systemClock;

describeEachEngine("credit ledger", (engine) => {
  let db: TestDatabase;
  /** On PostgreSQL, a pool wide enough that the transactions really run at the same time. */
  let store: Store;
  let counter = 0;

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    store = engine === "postgres" ? await openStore(db.target, { pgSchema: db.schema!, pgPoolSize: 20 }) : db.store;
  });
  afterAll(async () => {
    if (store !== db.store) await store.close();
    await db.drop();
  });

  async function account(credits: Partial<Record<Wallet, number>>): Promise<number> {
    counter += 1;
    const created = await createAccount(store, clock, {
      username: `ledger${counter}`,
      password: "password-1",
      credits,
    });
    return created.id;
  }

  async function expectConsistent(accountId: number, wallet: Wallet): Promise<number> {
    const balance = await walletBalance(store.db, accountId, wallet);
    expect(balance).toBeGreaterThanOrEqual(0);
    expect(await ledgerSum(store.db, accountId, wallet)).toBe(balance);
    const negative = await store.db
      .selectFrom("ledger_entries")
      .select("id")
      .where("account_id", "=", accountId)
      .where("balance_after", "<", 0)
      .execute();
    expect(negative).toEqual([]);
    return balance;
  }

  const debit = (accountId: number, amount: number, ref: string | null, wallet: Wallet = "sms") =>
    store.transaction((trx) => tryDebitWallet(trx, clock, { accountId, wallet, amount, kind: "debit", ref }));

  it("lets exactly floor(balance / amount) of 400 parallel debits through, and never overdraws", async () => {
    const id = await account({ sms: 1000 });
    const results = await Promise.all(Array.from({ length: 400 }, (_, i) => debit(id, toMilli(7), `msg-${i}`)));
    const charged = results.filter((r) => r !== undefined);
    expect(charged).toHaveLength(Math.floor(1000 / 7));
    // Each successful debit saw a distinct balance: no two were charged against the same credits.
    expect(new Set(charged).size).toBe(charged.length);
    expect(await expectConsistent(id, "sms")).toBe(toMilli(1000 - 142 * 7));
    const entries = await store.db
      .selectFrom("ledger_entries")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("account_id", "=", id)
      .where("kind", "=", "debit")
      .executeTakeFirstOrThrow();
    expect(Number(entries.n)).toBe(142);
  });

  it("charges a ref once only, even when the same debit arrives many times at once", async () => {
    const id = await account({ sms: 100 });
    const outcomes = await Promise.allSettled(Array.from({ length: 50 }, () => debit(id, toMilli(1), "msg-once")));
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    expect(outcomes.filter((o) => o.status === "rejected")).toHaveLength(49);
    expect(await expectConsistent(id, "sms")).toBe(toMilli(99));

    await expect(debit(id, toMilli(1), "msg-once")).rejects.toThrow();
    expect(await walletBalance(store.db, id, "sms")).toBe(toMilli(99));

    const refund = (ref: string) =>
      store.transaction((trx) =>
        creditWallet(trx, clock, { accountId: id, wallet: "sms", amount: toMilli(1), kind: "refund", ref }),
      );
    expect(await refund("msg-once")).toBe(toMilli(100));
    await expect(refund("msg-once")).rejects.toThrow();
    expect(await expectConsistent(id, "sms")).toBe(toMilli(100));
  });

  it("keeps balance equal to the ledger sum under hundreds of parallel top-ups and debits", async () => {
    const id = await account({ sms: 100 });
    const work = Array.from({ length: 400 }, (_, i) =>
      i % 2 === 0
        ? store
            .transaction((trx) =>
              creditWallet(trx, clock, { accountId: id, wallet: "sms", amount: toMilli(3), kind: "topup" }),
            )
            .then(() => "topup" as const)
        : debit(id, toMilli(5), `mixed-${i}`).then((after) => (after === undefined ? "short" : "debit")),
    );
    const outcomes = await Promise.all(work);
    const debits = outcomes.filter((o) => o === "debit").length;
    expect(outcomes.filter((o) => o === "topup")).toHaveLength(200);
    expect(await expectConsistent(id, "sms")).toBe(toMilli(100 + 200 * 3 - debits * 5));
  });

  it("keeps the wallets of one account apart", async () => {
    const id = await account({ sms: 10, whatsapp: 2 });
    expect(await debit(id, toMilli(3), "wa-1", "whatsapp")).toBeUndefined();
    expect(await debit(id, toMilli(2), "wa-2", "whatsapp")).toBe(0);
    expect(await walletBalance(store.db, id, "sms")).toBe(toMilli(10));
    await expectConsistent(id, "whatsapp");
    await expectConsistent(id, "sms");
  });

  it("refuses amounts that are not a positive whole number of milli-credits", async () => {
    const id = await account({ sms: 10 });
    for (const amount of [0, -1000, 1.5, Number.NaN]) {
      await expect(debit(id, amount, null)).rejects.toSatisfy(
        (error: unknown) => isGatewayError(error) && error.code === "invalid_request",
      );
    }
    expect(await expectConsistent(id, "sms")).toBe(toMilli(10));
  });

  it("moves credits as two entries in one transaction, and refuses self-transfer and overdraw", async () => {
    const from = await account({ sms: 50 });
    const to = await account({});
    const after = await transferCredits(store, clock, {
      fromAccountId: from,
      toAccountId: to,
      wallet: "sms",
      amount: toMilli(20),
      ref: "tr-1",
    });
    expect(after).toBe(toMilli(30));
    expect(await expectConsistent(from, "sms")).toBe(toMilli(30));
    expect(await expectConsistent(to, "sms")).toBe(toMilli(20));
    const entries = await store.db
      .selectFrom("ledger_entries")
      .select(["account_id", "amount", "kind"])
      .where("ref", "=", "tr-1")
      .orderBy("id")
      .execute();
    expect(entries).toEqual([
      { account_id: from, amount: -toMilli(20), kind: "transfer_out" },
      { account_id: to, amount: toMilli(20), kind: "transfer_in" },
    ]);

    const refused = (error: unknown, code: string) => isGatewayError(error) && error.code === code;
    await expect(
      transferCredits(store, clock, { fromAccountId: from, toAccountId: from, wallet: "sms", amount: 1, ref: "tr-2" }),
    ).rejects.toSatisfy((e: unknown) => refused(e, "invalid_request"));
    await expect(
      transferCredits(store, clock, {
        fromAccountId: from,
        toAccountId: to,
        wallet: "sms",
        amount: toMilli(31),
        ref: "tr-3",
      }),
    ).rejects.toSatisfy((e: unknown) => refused(e, "insufficient_credits"));
    expect(await expectConsistent(from, "sms")).toBe(toMilli(30));
    expect(await expectConsistent(to, "sms")).toBe(toMilli(20));
  });

  it("rolls the debit back when the credit half of a transfer fails", async () => {
    const from = await account({ sms: 50 });
    await expect(
      transferCredits(store, clock, {
        fromAccountId: from,
        toAccountId: 987_654_321,
        wallet: "sms",
        amount: toMilli(10),
        ref: "tr-orphan",
      }),
    ).rejects.toThrow();
    expect(await expectConsistent(from, "sms")).toBe(toMilli(50));
  });

  it("never overdraws under parallel transfers, and conserves the total", async () => {
    const a = await account({ sms: 100 });
    const b = await account({ sms: 100 });
    const moves = await Promise.allSettled(
      Array.from({ length: 120 }, (_, i) =>
        transferCredits(store, clock, {
          fromAccountId: i % 3 === 0 ? b : a,
          toAccountId: i % 3 === 0 ? a : b,
          wallet: "sms",
          amount: toMilli(4),
          ref: `tr-par-${i}`,
        }),
      ),
    );
    for (const move of moves) {
      if (move.status === "rejected")
        expect(isGatewayError(move.reason) && move.reason.code).toBe("insufficient_credits");
    }
    const balanceA = await expectConsistent(a, "sms");
    const balanceB = await expectConsistent(b, "sms");
    expect(balanceA + balanceB).toBe(toMilli(200));
  });
});
