// For suites that start real `switchboard start` processes on a database of their own and kill
// them (kill -9 between a commit and its answers, between a chain's steps): the database is made
// before the suite and dropped after it, and every process started is killed at the end.
import { afterAll, beforeAll } from "vitest";
import { addSenderIdFor, createAccountWithKey } from "../../src/app/admin/index.js";
import { systemClock } from "../../src/base/core/clock.js";
import type { Wallet } from "../../src/base/core/credits.js";
import type { Engine } from "../../src/base/store/engine.js";
import { cliActor } from "../../src/domain/audit/index.js";
import { type ServerProcess, startServer } from "./cli.js";
import { createTestDatabase, type TestDatabase } from "./engines.js";

export function useKilledServers(engine: Engine) {
  let db: TestDatabase | undefined;
  const started: ServerProcess[] = [];
  beforeAll(async () => {
    db = await createTestDatabase(engine);
  });
  afterAll(async () => {
    await Promise.all(started.map((server) => server.stop("SIGKILL")));
    await db?.drop();
  });
  return {
    db: (): TestDatabase => {
      if (!db) throw new Error("the suite's database is made in beforeAll");
      return db;
    },
    /** `switchboard start` on the suite's database (DATABASE_URL is in `env`). */
    start: async (env: Record<string, string>): Promise<ServerProcess> => {
      const server = await startServer("start", env);
      started.push(server);
      return server;
    },
  };
}

/**
 * An account that sends SMS from SWBRD with no rate limit and its DLT scrubbing off: these suites
 * test the pipeline, not the DLT rules. Its password is `${username}-password`.
 */
export async function pipelineAccount(db: TestDatabase, username: string, credits: Partial<Record<Wallet, number>>) {
  const deps = { store: db.store, clock: systemClock, actor: cliActor() };
  const account = await createAccountWithKey(deps, {
    username,
    password: `${username}-password`,
    credits,
    rateLimit: 0,
  });
  await addSenderIdFor(deps, { username, sender: "SWBRD", approve: true });
  await db.store.db.updateTable("accounts").set({ dlt_scrubbing: 0 }).where("id", "=", account.id).execute();
  return account;
}
