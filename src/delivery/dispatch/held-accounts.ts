// The accounts whose messages the dispatcher holds and the bulk expander leaves unexpanded
// (decision 0155): every account that acts not active (decision 0148: its own status, or one
// above it), kept in memory. Read again when an account's status may have changed (the
// credential signals `account:<id>` and `accounts:<ids>`, SQLite's epoch for the CLI's writes)
// and every REFRESH_MS; the held messages of an account that is active again are made due at once.
import type { Runtime } from "../../base/runtime/runtime.js";
import { inactiveAccountIds } from "../../domain/accounts/index.js";
import { listenForAuthChanges } from "../../domain/auth/index.js";
import { accountsWithHolds, wakeAccountHolds } from "../../domain/messages/index.js";
import { BULK_PARTS_SIGNAL } from "./bulk-expander.js";
import { type AccountsHeld, QUEUED_SIGNAL } from "./dispatcher.js";

/** A read of the statuses without a signal: for one that was lost (a dropped connection). */
const REFRESH_MS = 30_000;

type Deps = Pick<Runtime, "store" | "clock" | "logger">;

export class HeldAccounts implements AccountsHeld {
  private ids: ReadonlySet<number> = new Set();
  private loaded = false;
  private reading: Promise<void> | undefined;
  private readAgain = false;
  private stopListening: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: Deps) {}

  get size(): number {
    return this.ids.size;
  }

  has(accountId: number): boolean {
    return this.ids.has(accountId);
  }

  /** Reads the accounts (and wakes what an account reactivated while no process held it left held), then follows changes. */
  async start(): Promise<void> {
    this.stopListening = listenForAuthChanges(this.deps.store, this);
    this.timer = setInterval(() => this.refreshSoon(), REFRESH_MS);
    this.timer.unref();
    await this.refresh();
  }

  async stop(): Promise<void> {
    this.stopListening?.();
    clearInterval(this.timer);
    await this.reading?.catch(() => undefined);
  }

  /** A change of credentials (auth-changes.ts): an account's own, or its tree's, may be a status. */
  forget(payload: string): void {
    if (payload === "" || payload.startsWith("account:") || payload.startsWith("accounts:")) this.refreshSoon();
  }

  /**
   * Reads the accounts again; called during a read, it reads once more after it (the read in
   * progress may have missed the change), and resolves after that one.
   */
  refresh(): Promise<void> {
    if (this.reading) {
      this.readAgain = true;
      return this.reading;
    }
    this.reading = (async () => {
      do {
        this.readAgain = false;
        await this.read();
      } while (this.readAgain);
    })().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private refreshSoon(): void {
    this.refresh().catch((error: unknown) =>
      this.deps.logger.warn({ err: error }, "the accounts whose messages are held could not be read"),
    );
  }

  private async read(): Promise<void> {
    const { store, clock, logger } = this.deps;
    const ids = new Set(await inactiveAccountIds(store.db));
    const before = this.loaded ? this.ids : undefined;
    this.ids = ids;
    this.loaded = true;
    // At the first read, the holds of any account active now: it may have been reactivated while
    // no process that holds was running.
    const earlier = before ? [...before] : await accountsWithHolds(store.db);
    const released = earlier.filter((id) => !ids.has(id));
    if (released.length === 0) return;
    const woken = await store.transaction((trx) => wakeAccountHolds(trx, released, clock.now().getTime()));
    // Their bulk parts wait for the expander's next round; woken, it makes them messages now.
    await store.signals.notify(BULK_PARTS_SIGNAL).catch(() => undefined);
    if (woken === 0) return;
    await store.signals.notify(QUEUED_SIGNAL).catch(() => undefined);
    logger.info({ accounts: released.length, messages: woken }, "held messages of accounts active again are due");
  }
}
