// What a call costs. The charge is fixed when the call is accepted, from the text alone: its
// speech is estimated at 15 characters a second (about 150 words a minute), and each started
// VOICE_SECONDS_PER_UNIT (30 s by default) of it is one call unit, priced by the account's card
// (channel voice, route V; the built-in card: one voice credit a unit).

export const CHARS_PER_SECOND = 15;

/** Longest text accepted, in characters (Unicode code points): about 67 s of speech. */
export const MAX_TEXT_CHARS = 1000;

/** Characters of the text as it is spoken: code points, without leading and trailing space. */
export function textLength(text: string): number {
  let n = 0;
  for (const _ of text.trim()) n++;
  return n;
}

/** Estimated seconds of speech, at least 1. */
export function speechSeconds(text: string): number {
  return Math.max(1, Math.ceil(textLength(text) / CHARS_PER_SECOND));
}

/** Call units for that much speech: one per started `secondsPerUnit`, at least 1. */
export function callUnits(seconds: number, secondsPerUnit: number): number {
  return Math.max(1, Math.ceil(seconds / secondsPerUnit));
}
