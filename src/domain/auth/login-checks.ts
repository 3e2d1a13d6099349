// Password checks running in this process. The store's reservation (login-locks.ts) bounds the
// checks of every process together; this bounds, without a query, what one process starts: a
// flood of guesses past an address's or an account's budget is refused before it costs a write,
// and concurrent identical attempts (a legacy client's first requests, all with the same
// password) share one check instead of each running argon2 and spending one of the budget.

export type CheckOutcome = "verified" | "wrong" | "locked";

export class PasswordChecks {
  private readonly shared = new Map<string, Promise<CheckOutcome>>();
  private readonly byAddress = new Map<string, number>();
  private readonly byAccount = new Map<number, number>();

  /**
   * Runs `check` once for all attempts under the same `key` that arrive while it runs; `joined`
   * tells the attempts that took the outcome of another's check.
   */
  async once(key: string, check: () => Promise<CheckOutcome>): Promise<{ outcome: CheckOutcome; joined: boolean }> {
    const running = this.shared.get(key);
    if (running) return { outcome: await running, joined: true };
    const started = check().finally(() => this.shared.delete(key));
    this.shared.set(key, started);
    return { outcome: await started, joined: false };
  }

  /**
   * Takes a slot for one check from `address`, unless `perAddress` checks of that address or
   * `perAccount` of the account already run here (0: no bound). Answers the slot's release.
   */
  take(accountId: number, address: string, perAddress: number, perAccount: number): (() => void) | undefined {
    const addressKey = `${accountId} ${address}`;
    const fromAddress = this.byAddress.get(addressKey) ?? 0;
    const forAccount = this.byAccount.get(accountId) ?? 0;
    if ((perAddress > 0 && fromAddress >= perAddress) || (perAccount > 0 && forAccount >= perAccount)) return undefined;
    this.byAddress.set(addressKey, fromAddress + 1);
    this.byAccount.set(accountId, forAccount + 1);
    return () => {
      decrement(this.byAddress, addressKey);
      decrement(this.byAccount, accountId);
    };
  }
}

function decrement<K>(counts: Map<K, number>, key: K): void {
  const left = (counts.get(key) ?? 1) - 1;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}
