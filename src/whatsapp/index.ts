// The WhatsApp family (issue 7): template, session-text and media sends over the WhatsApp
// Cloud API (or its simulator), statuses from Meta's webhook, and the 24-hour window.
import type { Clock } from "../core/clock.js";
import type { Store } from "../store/store.js";

/** First start: connects the demo account to the simulated business account; banner lines. */
export async function setUpWhatsAppDemo(_store: Store, _clock: Clock, _accountId: number): Promise<string[]> {
  return [];
}
