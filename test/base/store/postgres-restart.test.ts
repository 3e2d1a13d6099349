// A PostgreSQL server that stops or restarts under an open store (throwaway servers of this
// file, never the shared one): a connection lost while a transaction holds it fails that
// transaction, and never the process, whose store works again once the server is back.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../../src/base/store/store.js";
import { postgresServerAvailable, startThrowawayPostgres, type ThrowawayPostgres } from "../../helpers/throwaway.js";

const required = process.env.SWITCHBOARD_REQUIRE_POSTGRES === "1";
if (required && !postgresServerAvailable()) throw new Error("SWITCHBOARD_REQUIRE_POSTGRES=1 but initdb is missing");
const suite = postgresServerAvailable() ? describe : describe.skip;

suite("a PostgreSQL restart under an open store", () => {
  let postgres: ThrowawayPostgres;
  let store: Store;
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => uncaught.push(error);

  beforeAll(async () => {
    postgres = await startThrowawayPostgres();
    store = await openStore({ engine: "postgres", url: postgres.url }, {});
    await store.migrate();
    // An 'error' event nobody listens to is thrown from the socket's callback, outside any promise.
    process.prependListener("uncaughtException", onUncaught);
  }, 120_000);

  afterAll(async () => {
    process.removeListener("uncaughtException", onUncaught);
    await store?.close().catch(() => undefined);
    await postgres?.destroy();
  });

  it.each([
    "fast",
    "immediate",
  ] as const)("fails the transaction holding a connection when the server stops (%s), and works after it restarts", async (mode) => {
    let inside!: () => void;
    const holding = new Promise<void>((resolve) => {
      inside = resolve;
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The transaction's connection is checked out of the pool and idle between two statements.
    const transaction = store.transaction(async (trx) => {
      await trx.selectFrom("settings").selectAll().execute();
      inside();
      await released;
      await trx.selectFrom("settings").selectAll().execute();
    });
    const outcome = transaction.then(
      () => "committed",
      () => "failed",
    );
    await holding;
    await postgres.stop(mode);
    // The socket's close reaches the client on a later turn of the event loop.
    await new Promise((resolve) => setTimeout(resolve, 200));
    release();
    expect(await outcome).toBe("failed");
    expect(uncaught).toEqual([]);

    await postgres.start();
    const rows = await store.db.selectFrom("settings").selectAll().execute();
    expect(Array.isArray(rows)).toBe(true);
  }, 60_000);
});
