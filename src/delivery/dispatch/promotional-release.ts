// A promotional SMS (routes P and PS) taken by the dispatcher a while after it was accepted (held
// for the promotional hours, scheduled, or queued behind a backlog) is checked again before it is
// sent, as its acceptance's checks may no longer hold (decision 0178): the promotional hours have
// closed (more than a minute ago): scheduled again for their opening; its number was put on the
// DND registry, or sent the account STOP, meanwhile: failed (dnd_blocked, recipient_opted_out)
// and refunded. A message sent within a minute of its acceptance is not looked at.
import { accountPromoWindow, type DailyWindow, parseDailyWindow } from "../../base/core/daily-window.js";
import { releaseAt } from "../../base/core/promo-hours.js";
import type { MessageRow } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";
import { dndListed, getAccount } from "../../domain/accounts/index.js";

/** How long after its acceptance a message is checked again, and how late past the window's close one still goes. */
export const RELEASE_GRACE_MS = 60_000;

const PROMOTIONAL_ROUTES: ReadonlySet<string> = new Set(["promotional", "promotional_sender"]);

export interface ReleaseRules {
  /** The operator's promotional hours (PROMO_HOURS) and the zone they are read in; an account's own replace them. */
  hours: DailyWindow;
  timeZone: string;
  /** Which of these numbers sent the account STOP (channels/inbound's suppression list, handed in by app/). */
  optedOut?: (accountId: number, numbers: readonly string[]) => Promise<Set<string>>;
}

/** A claimed batch after the check: the rows to send, those that fail and why, those scheduled again. */
export interface ReleasedBatch {
  send: MessageRow[];
  refused: { id: string; code: string; message: string }[];
  scheduledAgain: { id: string; dueAt: number }[];
}

export type PromotionalRelease = (rows: MessageRow[], now: number) => Promise<ReleasedBatch>;

export function promotionalRelease(db: Db, rules: ReleaseRules): PromotionalRelease {
  return async (rows, now) => {
    const late = rows.filter(
      (m) => m.channel === "sms" && PROMOTIONAL_ROUTES.has(m.route) && now - m.created_at > RELEASE_GRACE_MS,
    );
    if (late.length === 0) return { send: rows, refused: [], scheduledAgain: [] };
    // Per account, as `now` is the batch's: closed for longer than the grace (sent now, the
    // operator would drop it), and the opening it then waits for.
    const closedUntil = new Map<number, number | undefined>();
    for (const accountId of new Set(late.map((m) => m.account_id))) {
      const own = (await getAccount(db, accountId))?.promo_hours;
      // As at acceptance: the account's own window inside the operator's (a wider one stored before).
      const window = accountPromoWindow(own ? parseDailyWindow(own) : undefined, rules.hours);
      // Closed now, and already a minute ago: a window that opened within the minute is open (its
      // messages go at once, not scheduled again for the opening that has just passed).
      const graced = now - RELEASE_GRACE_MS;
      const opening = releaseAt(window, rules.timeZone, now);
      const closed = opening > now && releaseAt(window, rules.timeZone, graced) > graced;
      closedUntil.set(accountId, closed ? opening : undefined);
    }
    const withheld = new Set<string>();
    const scheduledAgain: ReleasedBatch["scheduledAgain"] = [];
    const refused: ReleasedBatch["refused"] = [];
    const open: MessageRow[] = [];
    for (const message of late) {
      const opening = closedUntil.get(message.account_id);
      if (opening === undefined) open.push(message);
      else {
        scheduledAgain.push({ id: message.id, dueAt: opening });
        withheld.add(message.id);
      }
    }
    const dnd =
      open.length > 0
        ? await dndListed(
            db,
            open.map((m) => m.recipient),
          )
        : new Set<string>();
    const optedOut = new Map<number, Set<string>>();
    if (rules.optedOut) {
      for (const accountId of new Set(open.map((m) => m.account_id))) {
        const numbers = open.filter((m) => m.account_id === accountId).map((m) => m.recipient);
        optedOut.set(accountId, await rules.optedOut(accountId, numbers));
      }
    }
    for (const message of open) {
      if (dnd.has(message.recipient)) {
        refused.push({
          id: message.id,
          code: "dnd_blocked",
          message: `${message.recipient} was put on the DND registry after the message was accepted; promotional SMS is not allowed.`,
        });
      } else if (optedOut.get(message.account_id)?.has(message.recipient)) {
        refused.push({
          id: message.id,
          code: "recipient_opted_out",
          message: `${message.recipient} opted out (STOP) of this account's promotional SMS after the message was accepted.`,
        });
      } else continue;
      withheld.add(message.id);
    }
    if (withheld.size === 0) return { send: rows, refused, scheduledAgain };
    return { send: rows.filter((m) => !withheld.has(m.id)), refused, scheduledAgain };
  };
}
