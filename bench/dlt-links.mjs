// DLT link and callback white-lists (issue 40, item 1): the cost per message of finding every link
// and phone number in the text and matching each against an entity's lists of 10,000 approved
// entries (URLs, half of them prefixes, and callback numbers). Messages of four kinds: no link,
// an approved link, an unlisted short link, a callback number. Reports the median and p99, and
// the median of each kind. Then the same messages as a send with scrubbing checks them: matched to
// an approved template of their kind (the match timed too), the text read by parts
// (base/core/dlt-link-parts.ts), with the answer compared to the whole text's.
// Usage: node bench/dlt-links.mjs [--entries 10000] [--messages 20000]   (after npm run build)
import { parseArgs } from "node:util";
import {
  emptyEntityLinks,
  findUnlistedLink,
  indexUrl,
  normalizeApprovedUrl,
  normalizeCallbackNumber,
} from "../dist/base/core/dlt-links.js";
import { TemplateIndex } from "../dist/channels/sms/dlt-matcher.js";
import { machine } from "./lib.mjs";

const { values } = parseArgs({
  options: { entries: { type: "string", default: "10000" }, messages: { type: "string", default: "20000" } },
});
const ENTRIES = Number(values.entries);
const MESSAGES = Number(values.messages);

const links = emptyEntityLinks();
for (let i = 0; i < ENTRIES; i++) {
  if (i % 10 === 0) links.callbacks.add(normalizeCallbackNumber(`98${String(10_000_000 + i).slice(-8)}`));
  else
    indexUrl(
      links,
      normalizeApprovedUrl(i % 2 ? `https://shop${i}.example.com/offers/` : `example${i}.in/app?id=${i}`),
    );
}
const texts = [
  (i) => `Your OTP is ${100000 + (i % 900000)}. Do not share it with anyone. Rs.1,499.00 due at 10 a.m.`,
  (i) => `Dear customer, your order ${i} is out. Track: https://shop${(i % 500) * 2 + 1}.example.com/offers/t/${i}`,
  (i) => `Sale! 20% off everything till Sunday, see bit.ly/x${i} now`,
  (i) => `Call us at +91 98${String(10_000_000 + (i % 1000) * 10).slice(-8)} for help with order ${i}`,
];
const expected = [undefined, undefined, "url", undefined];
const times = [];
const byKind = texts.map(() => []);
let correct = 0;
for (let i = 0; i < MESSAGES; i++) {
  const kind = i % texts.length;
  const text = texts[kind](i);
  const start = process.hrtime.bigint();
  const found = findUnlistedLink(text, links);
  const micros = Number(process.hrtime.bigint() - start) / 1000;
  times.push(micros);
  byKind[kind].push(micros);
  if (found?.kind === expected[kind]) correct++;
}
times.sort((a, b) => a - b);
const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(1);
const medianOf = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)].toFixed(1);
console.log(machine());
console.log(
  `${ENTRIES} entries, ${MESSAGES} messages: median ${at(0.5)} µs, p90 ${at(0.9)} µs, p99 ${at(0.99)} µs, max ${times.at(-1).toFixed(1)} µs; decisions correct ${correct} / ${MESSAGES}`,
);
console.log(
  `median by kind: no link ${medianOf(byKind[0])} µs, approved link ${medianOf(byKind[1])} µs, unlisted short link ${medianOf(byKind[2])} µs, callback number ${medianOf(byKind[3])} µs`,
);

// As a send with scrubbing on checks them: the template match, then the text read by parts.
const templates = new TemplateIndex(
  [
    "Your OTP is {#var#}. Do not share it with anyone. Rs.{#var#} due at 10 a.m.",
    "Dear customer, your order {#var#} is out. Track: https://shop{#var#}",
    "Sale! 20% off everything till Sunday, see {#var#} now",
    "Call us at {#var#} for help with order {#var#}",
  ].map((content, kind) => ({ content, value: kind })),
  "strict",
);
const matchTimes = [];
const partTimes = [];
const partsByKind = texts.map(() => []);
let same = 0;
for (let i = 0; i < MESSAGES; i++) {
  const kind = i % texts.length;
  const text = texts[kind](i);
  const start = process.hrtime.bigint();
  const matched = templates.matchWithLayout(text);
  const matchedAt = process.hrtime.bigint();
  const found = matched.layout.plan.firstUnlisted(text, matched.layout.pieceStarts, links);
  const end = process.hrtime.bigint();
  matchTimes.push(Number(matchedAt - start) / 1000);
  const micros = Number(end - matchedAt) / 1000;
  partTimes.push(micros);
  partsByKind[kind].push(micros);
  if (matched.value === kind && JSON.stringify(found) === JSON.stringify(findUnlistedLink(text, links))) same++;
}
console.log(
  `matched to a template, read by parts: median ${medianOf(partTimes)} µs (template match ${medianOf(matchTimes)} µs); ` +
    `by kind: no link ${medianOf(partsByKind[0])} µs, approved link ${medianOf(partsByKind[1])} µs, unlisted short link ${medianOf(partsByKind[2])} µs, callback number ${medianOf(partsByKind[3])} µs; ` +
    `same answer as the whole text ${same} / ${MESSAGES}`,
);

// A promotional template whose fixed text holds an approved link and number (the brand's own):
// read whole at every message, or by parts (the fixed text's found once per template).
const promo = "Diwali sale! Flat 40% off at shop1.example.com/offers/diwali till Sunday. Call 9810000000. Code {#var#}";
const promoIndex = new TemplateIndex([{ content: promo, value: "promo" }], "strict");
const wholeTimes = [];
const promoParts = [];
for (let i = 0; i < MESSAGES; i++) {
  const text = promo.replace("{#var#}", `FEST${i}`);
  let start = process.hrtime.bigint();
  const whole = findUnlistedLink(text, links);
  wholeTimes.push(Number(process.hrtime.bigint() - start) / 1000);
  start = process.hrtime.bigint();
  const matched = promoIndex.matchWithLayout(text);
  const parts = matched.layout.plan.firstUnlisted(text, matched.layout.pieceStarts, links);
  promoParts.push(Number(process.hrtime.bigint() - start) / 1000);
  if (whole !== undefined || parts !== undefined) throw new Error(`promo refused: ${JSON.stringify(whole ?? parts)}`);
}
console.log(
  `a template with a link and a number in its fixed text: whole text ${medianOf(wholeTimes)} µs, template match and read by parts ${medianOf(promoParts)} µs`,
);
