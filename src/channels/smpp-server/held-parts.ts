// The parts of long messages waiting for the rest, held in memory until the last part comes, the
// message's 60 s are up or its bind closes. Bounded per account, in bytes and in messages, so that
// one account's flood is refused to that account alone, and in bytes over all accounts, so that
// what every account may hold at once cannot take the process's memory.

/** How long the parts of a long message wait for the rest. */
const PARTS_HOLD_MS = 60_000;
/** What a held message costs beside its text (its key, maps and timer), on the high side. */
const MESSAGE_OVERHEAD_BYTES = 512;
const PART_OVERHEAD_BYTES = 64;

export interface HeldPartsLimits {
  bytesPerAccount: number;
  messagesPerAccount: number;
  bytesTotal: number;
}

/** A part to hold: `key` names its message (the caller's, one bind's reference for one address). */
export interface Part {
  key: string;
  bindId: string;
  accountId: number;
  sequence: number;
  total: number;
  text: string;
}

export type HoldOutcome =
  /** Held: the message's id, which the whole message will have. */
  | { kind: "held"; id: string }
  /** The last part came: the whole text, in part order. */
  | { kind: "whole"; id: string; text: string }
  /** Holding it would take the account past its bytes or messages. */
  | { kind: "over_account" }
  /** Holding it would take all accounts together past the total. */
  | { kind: "over_total" };

interface HeldMessage {
  id: string;
  bindId: string;
  accountId: number;
  parts: Map<number, string>;
  bytes: number;
  timer: NodeJS.Timeout;
}

interface AccountUse {
  bytes: number;
  messages: number;
}

/** Text as JavaScript may hold it: two bytes a character. */
function partBytes(text: string): number {
  return 2 * text.length + PART_OVERHEAD_BYTES;
}

export class HeldParts {
  private readonly messages = new Map<string, HeldMessage>();
  private readonly byBind = new Map<string, Set<string>>();
  private readonly byAccount = new Map<number, AccountUse>();
  private bytes = 0;

  constructor(
    private readonly limits: HeldPartsLimits,
    private readonly newId: () => string,
  ) {}

  hold(part: Part): HoldOutcome {
    const held = this.messages.get(part.key);
    const replaced = held?.parts.get(part.sequence);
    if (held && replaced === undefined && held.parts.size + 1 === part.total) {
      held.parts.set(part.sequence, part.text);
      const text = [...held.parts.entries()]
        .sort(([a], [b]) => a - b)
        .map(([, piece]) => piece)
        .join("");
      this.drop(part.key);
      return { kind: "whole", id: held.id, text };
    }
    const added =
      partBytes(part.text) - (replaced === undefined ? 0 : partBytes(replaced)) + (held ? 0 : MESSAGE_OVERHEAD_BYTES);
    const use = this.byAccount.get(part.accountId) ?? { bytes: 0, messages: 0 };
    if ((!held && use.messages >= this.limits.messagesPerAccount) || use.bytes + added > this.limits.bytesPerAccount) {
      return { kind: "over_account" };
    }
    if (this.bytes + added > this.limits.bytesTotal) return { kind: "over_total" };
    const message = held ?? this.start(part);
    message.parts.set(part.sequence, part.text);
    message.bytes += added;
    use.bytes += added;
    if (!held) use.messages++;
    this.byAccount.set(part.accountId, use);
    this.bytes += added;
    return { kind: "held", id: message.id };
  }

  /** Frees what a bind holds: its messages can no longer complete once it is gone. */
  release(bindId: string): void {
    for (const key of this.byBind.get(bindId) ?? []) this.drop(key);
  }

  close(): void {
    for (const key of [...this.messages.keys()]) this.drop(key);
  }

  private start(part: Part): HeldMessage {
    const timer = setTimeout(() => this.drop(part.key), PARTS_HOLD_MS);
    timer.unref();
    const message: HeldMessage = {
      id: this.newId(),
      bindId: part.bindId,
      accountId: part.accountId,
      parts: new Map(),
      bytes: 0,
      timer,
    };
    this.messages.set(part.key, message);
    const keys = this.byBind.get(part.bindId) ?? new Set<string>();
    keys.add(part.key);
    this.byBind.set(part.bindId, keys);
    return message;
  }

  private drop(key: string): void {
    const message = this.messages.get(key);
    if (!message) return;
    clearTimeout(message.timer);
    this.messages.delete(key);
    const keys = this.byBind.get(message.bindId);
    keys?.delete(key);
    if (keys?.size === 0) this.byBind.delete(message.bindId);
    const use = this.byAccount.get(message.accountId);
    if (use) {
      use.bytes -= message.bytes;
      use.messages--;
      if (use.messages === 0) this.byAccount.delete(message.accountId);
    }
    this.bytes -= message.bytes;
  }
}
