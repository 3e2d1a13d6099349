// The shape every background worker shares (dispatcher, bulk expander, webhook sender): run a
// round; if it found work, run the next at once; otherwise sleep until a wake-up signal or
// the idle interval. A wake-up that arrives during a round is kept, so it is never lost.
import type { Logger } from "pino";
import type { Signals } from "../store/store.js";
import { RepeatedErrors } from "./repeated-errors.js";

export interface WorkerLoopOptions {
  /** Shown in the log when a round fails. */
  name: string;
  logger: Logger;
  signals: Signals;
  /** Signal channel that wakes the loop. */
  channel: string;
  idleMs: number;
}

export abstract class WorkerLoop {
  private running = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private pendingWake = false;
  private unsubscribe: (() => void) | undefined;
  /** A round that fails the same way each time (the database away) is logged once, then counted. */
  private readonly failures: RepeatedErrors;

  protected constructor(private readonly loopOptions: WorkerLoopOptions) {
    this.failures = new RepeatedErrors(loopOptions.logger);
  }

  /** One round of work; true when it should run again at once. */
  protected abstract round(): Promise<boolean>;

  protected get isRunning(): boolean {
    return this.running;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.unsubscribe = this.loopOptions.signals.listen(this.loopOptions.channel, () => this.wake());
    this.loop = this.run();
  }

  /** Stops after the round in hand. */
  async stop(): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    this.wake();
    await this.loop;
    this.failures.flush();
  }

  wake(): void {
    this.pendingWake = true;
    this.wakeUp?.();
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.pendingWake = false;
      let again = false;
      try {
        again = await this.round();
      } catch (error) {
        this.failures.log("error", error, `${this.loopOptions.name} round failed`);
      }
      if (again || this.pendingWake || !this.running) continue;
      await this.sleep(this.loopOptions.idleMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }
}
