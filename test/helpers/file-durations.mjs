// Writes test/file-durations.json, the seconds each test file took, from a vitest JSON report
// of a whole run (`npx vitest run --reporter=default --reporter=json --outputFile.json=report.json`),
// for the slowest-first sequencer (sequencer.ts); prints the 20 slowest.
// Usage: node test/helpers/file-durations.mjs report.json
import fs from "node:fs";
import path from "node:path";

const [reportFile] = process.argv.slice(2);
if (!reportFile) {
  console.error("usage: node test/helpers/file-durations.mjs <vitest JSON report>");
  process.exit(2);
}
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
const report = JSON.parse(fs.readFileSync(reportFile, "utf8"));
const durations = {};
for (const result of report.testResults) {
  const file = path.relative(root, result.name).split(path.sep).join("/");
  durations[file] = Math.round((result.endTime - result.startTime) / 100) / 10;
}
const sorted = Object.fromEntries(Object.entries(durations).sort(([a, x], [b, y]) => y - x || a.localeCompare(b)));
fs.writeFileSync(path.join(root, "test/file-durations.json"), `${JSON.stringify(sorted, null, 2)}\n`);
const total = Object.values(sorted).reduce((sum, seconds) => sum + seconds, 0);
console.log(`${Object.keys(sorted).length} files, ${total.toFixed(1)} s in all; the slowest:`);
for (const [file, seconds] of Object.entries(sorted).slice(0, 20))
  console.log(`${seconds.toFixed(1).padStart(7)} s  ${file}`);
