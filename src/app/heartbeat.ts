// Each gateway process writes a heartbeat row every few seconds: who it is (role, host, pid,
// version, URL) and the time by its own clock and by the database's, taken in the same
// statement. `switchboard doctor` reads them to list the running processes and the skew of
// each one's clock against the database. Rows of processes gone for a day are deleted.

import { randomBytes } from "node:crypto";
import os from "node:os";
import { sql } from "kysely";
import type { Logger } from "pino";
import type { Clock } from "../base/core/clock.js";
import type { Store } from "../base/store/store.js";

export const HEARTBEAT_INTERVAL_MS = 10_000;
const FORGET_AFTER_MS = 24 * 60 * 60 * 1000;

/** Epoch milliseconds by the database's clock (SQLite has none of its own: the machine's). */
export function databaseNowSql(store: Store) {
  return store.engine === "postgres"
    ? sql<number>`cast(extract(epoch from clock_timestamp()) * 1000 as bigint)`
    : sql<number>`cast((julianday('now') - 2440587.5) * 86400000 as integer)`;
}

export interface HeartbeatInfo {
  role: string;
  url: string;
  version: string;
}

export interface Heartbeat {
  readonly id: string;
  /** Writes one beat now (the timer writes the others). */
  beat(): Promise<void>;
  /** Stops beating and deletes this process's row. */
  stop(): Promise<void>;
}

export function startHeartbeat(
  deps: { store: Store; clock: Clock; logger: Logger },
  info: HeartbeatInfo,
  intervalMs = HEARTBEAT_INTERVAL_MS,
): Heartbeat {
  const { store, clock, logger } = deps;
  const id = randomBytes(8).toString("hex");
  const startedAt = clock.now().getTime();
  const host = os.hostname();
  let writing: Promise<void> | undefined;
  let stopped = false;

  const beat = async () => {
    // The process's clock at the middle of the round trip that read the database's: the skew
    // is then off by at most half a round trip of a trivial query, whatever the load.
    const before = clock.now().getTime();
    const dbNow = Number(
      (await sql<{ now: number }>`select ${databaseNowSql(store)} as now`.execute(store.db)).rows[0]?.now,
    );
    const local = Math.round((before + clock.now().getTime()) / 2);
    await sql`
      insert into process_heartbeats (id, role, host, pid, version, url, started_at, beat_local, beat_db)
      values (${id}, ${info.role}, ${host}, ${process.pid}, ${info.version}, ${info.url},
              cast(${startedAt} as bigint), cast(${local} as bigint), cast(${dbNow} as bigint))
      on conflict (id) do update set beat_local = excluded.beat_local, beat_db = excluded.beat_db, url = excluded.url`.execute(
      store.db,
    );
    await sql`delete from process_heartbeats where beat_db < ${dbNow - FORGET_AFTER_MS}`.execute(store.db);
  };

  const tick = () => {
    if (writing || stopped) return;
    writing = beat()
      // The database being away is told by /readyz and the requests; a missed beat is no news.
      .catch((error: unknown) => logger.debug({ err: error }, "heartbeat not written"))
      .finally(() => {
        writing = undefined;
      });
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  timer.unref();

  return {
    id,
    beat,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await writing;
      await store.db
        .deleteFrom("process_heartbeats")
        .where("id", "=", id)
        .execute()
        .catch(() => undefined);
    },
  };
}
