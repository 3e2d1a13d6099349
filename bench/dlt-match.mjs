// DLT scrubbing cost: one message against an account's 10,000 approved templates.
// Templates are built from common SMS words (many share prefixes such as "Dear customer,"),
// so the index cannot lean on unique first words. Reports the median and p99 per message.
// Usage: node bench/dlt-match.mjs [--templates 10000] [--messages 20000]
import { parseArgs } from "node:util";
import { TemplateIndex } from "../dist/channels/sms/dlt-matcher.js";
import { machine } from "./lib.mjs";

const { values } = parseArgs({
  options: { templates: { type: "string", default: "10000" }, messages: { type: "string", default: "20000" } },
});
const TEMPLATES = Number(values.templates);
const MESSAGES = Number(values.messages);

let seed = 7;
const random = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
const pick = (list) => list[Math.floor(random() * list.length)];
const openings = [
  "Dear customer,",
  "Dear {#var#},",
  "Hi {#var#},",
  "Your",
  "Thank you for",
  "Alert:",
  "{#var#} is your",
  "Reminder:",
];
const words =
  "account order payment OTP code balance credited debited delivery shipped booking ticket appointment bill due policy renewal loan EMI card transaction login verification valid minutes share anyone bank store service request update".split(
    " ",
  );

const templates = [];
for (let i = 0; i < TEMPLATES; i++) {
  const parts = [pick(openings)];
  const length = 6 + Math.floor(random() * 10);
  for (let w = 0; w < length; w++) parts.push(random() < 0.2 ? "{#var#}" : pick(words));
  parts.push(`ref${i}.`);
  templates.push(parts.join(" "));
}
const index = new TemplateIndex(templates.map((content, id) => ({ content, value: id })));

const fill = (template) => template.replace(/\{#var#\}/g, () => String(Math.floor(random() * 1e8)));
const probes = [];
for (let i = 0; i < MESSAGES; i++) {
  const template = templates[Math.floor(random() * templates.length)];
  probes.push(
    i % 2 === 0 ? { text: fill(template), expect: true } : { text: `${fill(template)} extra words`, expect: false },
  );
}

for (const p of probes.slice(0, 1000)) index.match(p.text); // warm up
const times = [];
let matched = 0;
for (const p of probes) {
  const started = process.hrtime.bigint();
  const result = index.match(p.text);
  times.push(Number(process.hrtime.bigint() - started) / 1e6);
  if ((result !== undefined) === p.expect) matched++;
}
times.sort((a, b) => a - b);
const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
console.log(`templates ${TEMPLATES}, messages ${MESSAGES} (half matching, half not)`);
console.log(
  `median ${at(0.5).toFixed(4)} ms, p90 ${at(0.9).toFixed(4)} ms, p99 ${at(0.99).toFixed(4)} ms, max ${times.at(-1).toFixed(3)} ms`,
);
console.log(`decisions as expected: ${matched}/${MESSAGES}`);
console.log(`machine: ${machine()}`);
