// Where a test run's CPU goes inside vitest's workers (issue 37): adds up the per-file CPU
// profiles that test/helpers/suite-profile.ts writes, and prints the busy seconds by test file,
// by package or source folder, and by function (self time). Usage:
//   SUITE_PROFILE_DIR=/tmp/suite-profile npx vitest run   (the directory must exist)
//   node bench/suite-profile.mjs /tmp/suite-profile [--top 40]
// The profiler samples wall time: on a machine whose cores are all busy, a thread waiting for a
// core is counted in whatever it ran last, so compare shares between runs, not seconds with
// another machine's. Its own work (the inspector's "dispatch" of each file's profile) is left out.
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: "string", default: "40" } },
});
const dir = positionals[0];
if (!dir) throw new Error("usage: node bench/suite-profile.mjs DIR [--top N]");
const top = Number(values.top);

/**
 * V8's frames that are not CPU spent by the tests: waiting, and the profiler's own hand-over. Both
 * are native (no URL): a JavaScript function named `dispatch` (undici's, say) is the tests' work.
 */
const NOT_BUSY = new Set(["(idle)", "dispatch"]);

const short = (url) => url.replace(/.*\/(src|test|web|node_modules|dist)\//, "$1/");
function packageOf(frame) {
  const { url, functionName } = frame;
  if (!url) return `(native) ${functionName}`;
  const module = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url);
  if (module) return module[1];
  const source = /\/(src|test|web)\/([^/]+(\/[^/.]+)?)/.exec(url);
  if (source) return `${source[1]}/${source[2]}`;
  return url.startsWith("node:") ? "node:" : short(url);
}

const byFile = new Map();
const byPackage = new Map();
const byFunction = new Map();
const add = (map, key, value) => map.set(key, (map.get(key) ?? 0) + value);
let total = 0;
let busy = 0;

for (const name of fs.readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"))) {
  const profile = JSON.parse(fs.readFileSync(path.join(dir, name), "utf8"));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const file = name
    .replace(/^\d+-/, "")
    .replace(/\.cpuprofile$/, "")
    .replaceAll("__", "/");
  profile.samples.forEach((id, i) => {
    const micros = profile.timeDeltas[i] ?? 0;
    total += micros;
    const frame = nodes.get(id).callFrame;
    if (!frame.url && NOT_BUSY.has(frame.functionName)) return;
    busy += micros;
    add(byFile, file, micros);
    add(byPackage, packageOf(frame), micros);
    add(byFunction, `${frame.functionName || "(anonymous)"} ${short(frame.url)}:${frame.lineNumber + 1}`, micros);
  });
}

// The kernel's count of each file's CPU (suite-profile.ts's <pid>-<file>.cpu.json): the worker's
// threads and the children it reaped, not inflated by waiting for a core as the samples are.
const cpuByFile = new Map();
for (const name of fs.readdirSync(dir).filter((f) => f.endsWith(".cpu.json"))) {
  const file = name
    .replace(/^\d+-/, "")
    .replace(/\.cpu\.json$/, "")
    .replaceAll("__", "/");
  const { self, children } = JSON.parse(fs.readFileSync(path.join(dir, name), "utf8"));
  add(cpuByFile, file, self + children);
}

const seconds = (micros) => (micros / 1e6).toFixed(1).padStart(7);
if (cpuByFile.size > 0) {
  const cpu = [...cpuByFile.values()].reduce((sum, value) => sum + value, 0);
  console.log(
    `${cpu.toFixed(1).padStart(7)} CPU-s (worker threads and reaped children) in ${cpuByFile.size} test files`,
  );
  console.log(`\n-- by test file, CPU-s`);
  for (const [key, value] of [...cpuByFile].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${value.toFixed(1).padStart(7)} s ${((100 * value) / cpu).toFixed(1).padStart(5)} %  ${key}`);
  }
  console.log("");
}
if (byFile.size === 0) process.exit(0);
console.log(`${seconds(busy)} s busy of ${seconds(total).trim()} s sampled, in ${byFile.size} test files`);
for (const [title, map] of [
  ["test file", byFile],
  ["package or source folder", byPackage],
  ["function (self time)", byFunction],
]) {
  console.log(`\n-- by ${title}`);
  for (const [key, micros] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${seconds(micros)} s ${((100 * micros) / busy).toFixed(1).padStart(5)} %  ${key}`);
  }
}
