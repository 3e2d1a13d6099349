// The parts of long messages waiting for the rest, held in memory until the last part comes, the
// message's 60 s are up or its bind closes. Bounded per account, in bytes and in messages, so that
// one account's flood is refused to that account alone, and in bytes over all accounts, so that
// what every account may hold at once cannot take the process's memory. A message dropped before
// it completed is handed to `dropped` with the registered_delivery of each part answered, so that
// every ESME_ROK that asked for a receipt still gets one (a failed one).

/** How long the parts of a long message wait for the rest, on the runtime's clock. */
export const PARTS_HOLD_MS = 60_000;
/** How often held messages are looked at for their time being up. */
const SWEEP_MS = 1_000;
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
  /** The part's source_addr and destination_addr, for a receipt if it is dropped. */
  source: string;
  destination: string;
  /** The part's registered_delivery (0, 1 or 2). */
  receipt: number;
}

/** A message dropped before its last part came, or refused once it came. */
export interface DroppedMessage {
  id: string;
  accountId: number;
  source: string;
  destination: string;
  /** The text of the parts it had, in part order. */
  text: string;
  /** When its first part came. */
  since: number;
  /** The registered_delivery of each part answered ESME_ROK that asked for a receipt, in part order. */
  receipts: number[];
}

export type DropReason = "expired" | "closed";

export type HoldOutcome =
  /** Held: the message's id, which the whole message will have. */
  | { kind: "held"; id: string }
  /** The last part came: the whole text, in part order. */
  | {
      kind: "whole";
      id: string;
      text: string;
      /** registered_delivery of every part that asked for a receipt (a part sent twice counted once). */
      receipts: number[];
      /** The message without this last part, answered before it: what a refusal of the whole owes. */
      earlier: DroppedMessage;
    }
  /** Holding it would take the account past its bytes or messages. */
  | { kind: "over_account" }
  /** Holding it would take all accounts together past the total. */
  | { kind: "over_total" };

interface HeldPart {
  text: string;
  receipt: number;
}

interface HeldMessage {
  id: string;
  bindId: string;
  accountId: number;
  source: string;
  destination: string;
  parts: Map<number, HeldPart>;
  bytes: number;
  since: number;
  expires: number;
}

/** The flag of a part sent twice: a receipt if either asked for one (1 over 2 over 0). */
function strongest(a: number, b: number): number {
  return a === 1 || b === 1 ? 1 : a || b;
}

function droppedOf(message: HeldMessage): DroppedMessage {
  const parts = [...message.parts.entries()].sort(([a], [b]) => a - b).map(([, part]) => part);
  return {
    id: message.id,
    accountId: message.accountId,
    source: message.source,
    destination: message.destination,
    text: parts.map((part) => part.text).join(""),
    since: message.since,
    receipts: parts.map((part) => part.receipt).filter((receipt) => receipt !== 0),
  };
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
  /** The same messages by the id their parts were answered with (query_sm). */
  private readonly byId = new Map<string, HeldMessage>();
  private readonly byBind = new Map<string, Set<string>>();
  private readonly byAccount = new Map<number, AccountUse>();
  private bytes = 0;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly limits: HeldPartsLimits,
    private readonly newId: () => string,
    /** The runtime clock's now, in ms: a message's hold time is counted on it. */
    private readonly now: () => number,
    /** A message dropped before it completed (its time up, its bind gone, the server stopping). */
    private readonly dropped: (message: DroppedMessage, reason: DropReason) => void,
  ) {}

  hold(part: Part): HoldOutcome {
    const held = this.messages.get(part.key);
    const replaced = held?.parts.get(part.sequence);
    if (held && replaced === undefined && held.parts.size + 1 === part.total) {
      const earlier = droppedOf(held);
      held.parts.set(part.sequence, { text: part.text, receipt: part.receipt });
      const whole = droppedOf(held);
      this.drop(part.key);
      return { kind: "whole", id: held.id, text: whole.text, receipts: whole.receipts, earlier };
    }
    const added =
      partBytes(part.text) -
      (replaced === undefined ? 0 : partBytes(replaced.text)) +
      (held ? 0 : MESSAGE_OVERHEAD_BYTES);
    const use = this.byAccount.get(part.accountId) ?? { bytes: 0, messages: 0 };
    if ((!held && use.messages >= this.limits.messagesPerAccount) || use.bytes + added > this.limits.bytesPerAccount) {
      return { kind: "over_account" };
    }
    if (this.bytes + added > this.limits.bytesTotal) return { kind: "over_total" };
    const message = held ?? this.start(part);
    message.parts.set(part.sequence, {
      text: part.text,
      receipt: replaced === undefined ? part.receipt : strongest(replaced.receipt, part.receipt),
    });
    message.bytes += added;
    use.bytes += added;
    if (!held) use.messages++;
    this.byAccount.set(part.accountId, use);
    this.bytes += added;
    return { kind: "held", id: message.id };
  }

  /** Whether the account's parts answered with `id` wait for the rest here. */
  holds(accountId: number, id: string): boolean {
    return this.byId.get(id)?.accountId === accountId;
  }

  /** Frees what a bind holds: its messages can no longer complete once it is gone. */
  release(bindId: string): void {
    for (const key of [...(this.byBind.get(bindId) ?? [])]) this.drop(key, "closed");
  }

  close(): void {
    for (const key of [...this.messages.keys()]) this.drop(key, "closed");
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  /** Drops the messages whose time is up. */
  private sweep(): void {
    const now = this.now();
    for (const [key, message] of this.messages) {
      if (message.expires <= now) this.drop(key, "expired");
    }
    if (this.messages.size === 0) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  private start(part: Part): HeldMessage {
    const since = this.now();
    const message: HeldMessage = {
      id: this.newId(),
      bindId: part.bindId,
      accountId: part.accountId,
      source: part.source,
      destination: part.destination,
      parts: new Map(),
      bytes: 0,
      since,
      expires: since + PARTS_HOLD_MS,
    };
    if (!this.sweeper) {
      this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
      this.sweeper.unref();
    }
    this.messages.set(part.key, message);
    this.byId.set(message.id, message);
    const keys = this.byBind.get(part.bindId) ?? new Set<string>();
    keys.add(part.key);
    this.byBind.set(part.bindId, keys);
    return message;
  }

  /** Forgets a message: completed (no reason) or dropped before it completed (handed to `dropped`). */
  private drop(key: string, reason?: DropReason): void {
    const message = this.messages.get(key);
    if (!message) return;
    this.messages.delete(key);
    this.byId.delete(message.id);
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
    if (reason) this.dropped(droppedOf(message), reason);
  }
}
