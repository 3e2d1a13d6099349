// Who is bound where, for the operator: every process writes its own binds into smpp_binds
// (a row when a client binds, gone when it unbinds, refreshed every few seconds with its
// submit count and rate), so the operator API and the CLI of any process, or a CLI on another
// machine, list the binds of all processes. A disconnect is a request written on the row (and
// signalled): the process holding the bind sees it and unbinds the client. Rows a process did
// not refresh for a while (it died) are left out of listings and deleted. The rows are also
// what an account's `smpp_max_binds` is counted on, over every process (claim).
import { randomBytes } from "node:crypto";
import os from "node:os";
import { sql } from "kysely";
import type { Logger } from "pino";
import type { Clock } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import type { SmppBindsTable } from "../../base/store/schema.js";
import type { Db, Store } from "../../base/store/store.js";
import { accountUsernames } from "../../domain/accounts/index.js";

/** How often a process refreshes its rows. */
export const BIND_REPORT_MS = 5_000;
/** A row older than this is of a process that stopped reporting: not listed. */
const LIVE_MS = 3 * BIND_REPORT_MS;
/** ... and deleted after this. */
const FORGET_MS = 60_000;
/** PostgreSQL advisory lock (with the account id) held while a bind counts its account's binds. */
const BIND_COUNT_LOCK = 0x5357_5342; // "SWSB"
/** Signal: an operator asked for a bind to be closed (payload: its id). */
export const SMPP_BIND_DISCONNECT = "smpp_bind_disconnect";

/** A bind as the operator API and the CLI show it. */
export interface BindListing {
  id: string;
  username: string;
  mode: SmppBindsTable["mode"];
  address: string;
  port: number;
  tls: boolean;
  bound_at: string;
  submits: number;
  submits_per_second: number;
  /** The process holding it. */
  process: { host: string; pid: number };
  disconnect_requested: boolean;
}

/** What the process holding a bind reports about it. */
export interface ReportedBind {
  id: string;
  accountId: number;
  mode: SmppBindsTable["mode"];
  address: string;
  port: number;
  tls: boolean;
  boundAt: number;
  submits: number;
}

/** The binds of every process (of one account when given), oldest first. */
export async function listBinds(db: Db, now: number, accountId?: number): Promise<BindListing[]> {
  let query = db
    .selectFrom("smpp_binds as b")
    .selectAll("b")
    .where("b.seen_at", ">=", now - LIVE_MS);
  if (accountId !== undefined) query = query.where("b.account_id", "=", accountId);
  const binds = await query.orderBy("b.bound_at").orderBy("b.id").execute();
  // A bind whose account no longer exists is left out, as the inner join with accounts did.
  const usernames = await accountUsernames(db, [...new Set(binds.map((row) => Number(row.account_id)))]);
  const rows = binds.flatMap((row) => {
    const username = usernames.get(Number(row.account_id));
    return username === undefined ? [] : [{ ...row, username }];
  });
  return rows.map((row) => ({
    id: row.id,
    username: row.username,
    mode: row.mode,
    address: row.address,
    port: row.port,
    tls: row.tls === 1,
    bound_at: new Date(row.bound_at).toISOString(),
    submits: row.submits,
    submits_per_second: Math.round(row.submit_rate * 10) / 10,
    process: { host: row.host, pid: row.pid },
    disconnect_requested: row.disconnect_requested_at !== null,
  }));
}

/**
 * Asks the process holding bind `id` to unbind it, and waits up to `waitMs` for it to go;
 * `closed` says whether it went in that time (a client that does not answer the unbind is
 * cut off after SMPP_SERVER_RESPONSE_TIMEOUT_MS).
 */
export async function disconnectBind(
  deps: { store: Store; clock: Clock },
  id: string,
  waitMs: number,
): Promise<{ bind: BindListing; closed: boolean }> {
  const { store, clock } = deps;
  const now = clock.now().getTime();
  const bind = (await listBinds(store.db, now)).find((b) => b.id === id);
  if (!bind) {
    throw new GatewayError("not_found", `No SMPP bind "${id}" is open (binds are listed with their ids).`);
  }
  await store.db
    .updateTable("smpp_binds")
    .set({ disconnect_requested_at: now })
    .where("id", "=", id)
    .where("disconnect_requested_at", "is", null)
    .execute();
  await store.signals.notify(SMPP_BIND_DISCONNECT, id);
  const deadline = Date.now() + waitMs;
  for (;;) {
    const row = await store.db.selectFrom("smpp_binds").select("id").where("id", "=", id).executeTakeFirst();
    if (!row) return { bind: { ...bind, disconnect_requested: true }, closed: true };
    if (Date.now() >= deadline) return { bind: { ...bind, disconnect_requested: true }, closed: false };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** One process's side: writes its binds' rows and reads the disconnect requests made for them. */
export class BindReports {
  /** Random per process start; bind ids are this and a count. */
  readonly processId = randomBytes(4).toString("hex");
  private readonly host = os.hostname();
  private count = 0;
  /** Each bind's insert, so that its delete never runs before it. */
  private readonly inserted = new Map<string, Promise<void>>();
  private readonly lastReport = new Map<string, { submits: number; at: number }>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  nextId(): string {
    this.count += 1;
    return `${this.processId}-${this.count}`;
  }

  /**
   * Takes one of the account's `maxBinds` places (0: no limit) over every process: in one
   * transaction, counts the account's live rows (a dead process's count until they are LIVE_MS
   * old) and writes the bind's row if they are fewer. Two binds at once on two processes
   * count one after the other: on PostgreSQL each first takes the account's advisory lock, held
   * to its commit; SQLite's write transactions are serial already. False: all in use, no row.
   */
  async claim(bind: ReportedBind, maxBinds: number): Promise<boolean> {
    if (maxBinds <= 0) {
      await this.added(bind);
      return true;
    }
    const now = this.clock.now().getTime();
    const claimed = this.store.transaction(async (trx) => {
      if (this.store.engine === "postgres") {
        await sql`select pg_advisory_xact_lock(cast(${BIND_COUNT_LOCK} as integer), cast(${bind.accountId} as integer))`.execute(
          trx,
        );
      }
      const counted = await trx
        .selectFrom("smpp_binds")
        .select((eb) => eb.fn.countAll().as("n"))
        .where("account_id", "=", bind.accountId)
        .where("seen_at", ">=", now - LIVE_MS)
        .executeTakeFirstOrThrow();
      if (Number(counted.n) >= maxBinds) return false;
      await trx.insertInto("smpp_binds").values(this.rowOf(bind, now)).execute();
      return true;
    });
    // A close while it is counted deletes the row after it (removed).
    const settled = claimed.then(
      () => undefined,
      () => undefined,
    );
    this.inserted.set(bind.id, settled);
    this.lastReport.set(bind.id, { submits: bind.submits, at: now });
    try {
      if (await claimed) return true;
    } catch (error) {
      this.forget(bind.id, settled);
      throw error;
    }
    this.forget(bind.id, settled);
    return false;
  }

  private forget(id: string, insert: Promise<void>): void {
    if (this.inserted.get(id) !== insert) return;
    this.inserted.delete(id);
    this.lastReport.delete(id);
  }

  private rowOf(bind: ReportedBind, now: number) {
    return {
      id: bind.id,
      process_id: this.processId,
      host: this.host,
      pid: process.pid,
      account_id: bind.accountId,
      mode: bind.mode,
      address: bind.address,
      port: bind.port,
      tls: bind.tls ? 1 : 0,
      bound_at: bind.boundAt,
      submits: bind.submits,
      submit_rate: 0,
      seen_at: now,
      disconnect_requested_at: null,
    };
  }

  /** Writes the bind's row, unless claim wrote it; resolves once written (or failed, which is logged). */
  added(bind: ReportedBind): Promise<void> {
    const claimed = this.inserted.get(bind.id);
    if (claimed) return claimed;
    const now = this.clock.now().getTime();
    this.lastReport.set(bind.id, { submits: bind.submits, at: now });
    const insert = this.store.db
      .insertInto("smpp_binds")
      .values(this.rowOf(bind, now))
      .execute()
      .then(() => undefined)
      .catch((error: unknown) => this.logger.warn({ err: error, bind: bind.id }, "SMPP bind not recorded"));
    this.inserted.set(bind.id, insert);
    return insert;
  }

  removed(id: string): void {
    const insert = this.inserted.get(id);
    this.inserted.delete(id);
    this.lastReport.delete(id);
    if (!insert) return;
    void insert
      .then(() => this.store.db.deleteFrom("smpp_binds").where("id", "=", id).execute())
      .catch((error: unknown) => this.logger.warn({ err: error, bind: id }, "SMPP bind row not deleted"));
  }

  /** Refreshes this process's rows (submits, rate, seen_at), in one commit, and deletes those of processes gone. */
  async refresh(binds: readonly ReportedBind[]): Promise<void> {
    const now = this.clock.now().getTime();
    const changes = binds
      .filter((bind) => this.inserted.has(bind.id))
      .map((bind) => {
        const last = this.lastReport.get(bind.id) ?? { submits: 0, at: bind.boundAt };
        const seconds = Math.max(0.001, (now - last.at) / 1000);
        this.lastReport.set(bind.id, { submits: bind.submits, at: now });
        return { id: bind.id, submits: bind.submits, rate: Math.max(0, bind.submits - last.submits) / seconds };
      });
    await this.store.transaction(async (trx) => {
      for (const change of changes) {
        await trx
          .updateTable("smpp_binds")
          .set({ submits: change.submits, submit_rate: change.rate, seen_at: now })
          .where("id", "=", change.id)
          .execute();
      }
      await trx
        .deleteFrom("smpp_binds")
        .where("seen_at", "<", now - FORGET_MS)
        .execute();
    });
  }

  /** Ids of this process's binds an operator asked to close. */
  async disconnectRequests(): Promise<string[]> {
    const rows = await this.store.db
      .selectFrom("smpp_binds")
      .select("id")
      .where("process_id", "=", this.processId)
      .where("disconnect_requested_at", "is not", null)
      .execute();
    return rows.map((row) => row.id);
  }

  /** Deletes every row of this process (shutdown). */
  async clear(): Promise<void> {
    await Promise.all(this.inserted.values());
    this.inserted.clear();
    await this.store.db.deleteFrom("smpp_binds").where("process_id", "=", this.processId).execute();
  }
}
