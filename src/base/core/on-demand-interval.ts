// An interval that runs only while it has something to do (issue 43: an idle gateway sleeps): the
// owner arms it when work arrives, and it ends itself at the first tick that finds none left. A
// stopped one is never armed. The simulated carriers' release of due reports and call steps, and
// the retry of call statuses held for their call, each look every few milliseconds only while
// something waits.
export class OnDemandInterval {
  private timer: NodeJS.Timeout | undefined;
  private started = false;

  /** `tick` runs every `everyMs` while armed; `pending` says whether anything is left for it. */
  constructor(
    private readonly everyMs: number,
    private readonly tick: () => void,
    private readonly pending: () => boolean,
  ) {}

  /** From now on it may run; armed at once when something is pending. */
  start(): void {
    this.started = true;
    this.arm();
  }

  stop(): void {
    this.started = false;
    this.disarm();
  }

  /** Runs it if started, not running and something is pending: after adding work. */
  arm(): void {
    if (!this.started || this.timer || !this.pending()) return;
    this.timer = setInterval(() => {
      this.tick();
      if (!this.pending()) this.disarm();
    }, this.everyMs);
    this.timer.unref();
  }

  /** Ends it when nothing is pending any more (work taken outside a tick). */
  disarmIfIdle(): void {
    if (!this.pending()) this.disarm();
  }

  /** Whether it is running. */
  get armed(): boolean {
    return this.timer !== undefined;
  }

  private disarm(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
