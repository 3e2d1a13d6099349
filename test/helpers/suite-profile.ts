// Setup file of every test file: with SUITE_PROFILE_DIR set, each test file's CPU profile (the
// worker's main thread, from its first beforeAll to its last afterAll) is written there as
// <pid>-<file>.cpuprofile; bench/suite-profile.mjs adds them up by file, package and function.
// vitest ends its forks without a normal exit, so node's --cpu-prof writes nothing for them; the
// inspector's profiler, stopped after each file, does. Without the variable it does nothing.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import path from "node:path";
import { afterAll, beforeAll, expect } from "vitest";

const dir = process.env.SUITE_PROFILE_DIR;
const worker = globalThis as { suiteProfiler?: Session };

if (dir) {
  beforeAll(async () => {
    if (!worker.suiteProfiler) {
      worker.suiteProfiler = new Session();
      worker.suiteProfiler.connect();
      await worker.suiteProfiler.post("Profiler.enable");
    }
    await worker.suiteProfiler.post("Profiler.start");
  });
  // Registered first, so it runs after the file's own afterAll hooks (vitest runs them as a stack).
  afterAll(async () => {
    const { profile } = await worker.suiteProfiler!.post("Profiler.stop");
    const name = path.relative(process.cwd(), expect.getState().testPath ?? "unknown").replaceAll(path.sep, "__");
    writeFileSync(path.join(dir, `${process.pid}-${name}.cpuprofile`), JSON.stringify(profile));
  });
}
