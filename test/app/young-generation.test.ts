// A `start` holds its threads' young generations at their first size until the main thread is
// under load (src/base/runtime/young-generation.ts). It rests on V8 reading its growth factor at
// each growth and on node setting V8's flags back when a worker thread starts: a child process
// (the flag is the whole process's) checks both on the built module, so a Node.js that stops
// doing either fails here rather than quietly idling 25 MB larger.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const MODULE = fileURLToPath(new URL("../../dist/base/runtime/young-generation.js", import.meta.url));

const CHILD = `
import v8 from "node:v8";
import { once } from "node:events";
import { Worker } from "node:worker_threads";
const { holdYoungGeneration, releaseYoungGenerationUnderLoad } = await import(process.argv[1]);
const newSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size;
// Objects that survive their scavenges: what makes V8 grow the young generation.
const survivors = async (megabytes) => {
  const kept = [];
  for (let i = 0; i < megabytes; i++) {
    for (let j = 0; j < 20000; j++) kept.push({ i, j });
    await new Promise((resolve) => setImmediate(resolve));
  }
  return kept.length;
};
const worker = new Worker("setInterval(() => {}, 1000)", { eval: true });
await once(worker, "online");
holdYoungGeneration();
const first = newSpace();
await survivors(60);
const held = newSpace();
const stop = releaseYoungGenerationUnderLoad();
await survivors(60);
const released = newSpace();
stop();
await worker.terminate();
console.log(JSON.stringify({ first, held, released }));
`;

it("keeps the young generation at its size until the main thread is under load, then lets it grow", () => {
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", CHILD, MODULE], { encoding: "utf8" });
  expect(child.stderr).toBe("");
  const { first, held, released } = JSON.parse(child.stdout) as { first: number; held: number; released: number };
  // Without the hold, 60 MB of survivors grow it to its maximum (32 MB on 64-bit Node.js).
  expect(held).toBeLessThanOrEqual(Math.max(first, 2 * 2 ** 20));
  expect(released).toBeGreaterThanOrEqual(4 * held);
}, 60_000);
