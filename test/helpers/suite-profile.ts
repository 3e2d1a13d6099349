// Setup file of every test file: with SUITE_PROFILE_DIR set, each test file's CPU profile (the
// worker's main thread, from its first beforeAll to its last afterAll) is written there as
// <pid>-<file>.cpuprofile; bench/suite-profile.mjs adds them up by file, package and function.
// vitest ends its forks without a normal exit, so node's --cpu-prof writes nothing for them; the
// inspector's profiler, stopped after each file, does. Without the variable it does nothing.
// With SUITE_PROFILE_DIR or SUITE_CPU_DIR, <pid>-<file>.cpu.json holds the file's CPU time as the
// kernel counts it (the worker's threads, and the child processes it reaped meanwhile: spawned
// gateways and CLIs), which a loaded machine does not inflate as it does the profile's samples
// (the profiler samples wall time). SUITE_CPU_DIR alone writes only that, without the profiler's cost.
import { readFileSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import path from "node:path";
import { afterAll, expect } from "vitest";

const profileDir = process.env.SUITE_PROFILE_DIR;
const dir = profileDir ?? process.env.SUITE_CPU_DIR;
const worker = globalThis as { suiteProfiler?: Session };

/** CPU-seconds of this process (all its threads) and of its reaped children, from /proc. */
function cpuSeconds(): { self: number; children: number } {
  // Fields after the command's closing parenthesis: utime is the 12th, stime, cutime, cstime follow.
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = (i: number) => Number(fields[i]) / 100;
  return { self: ticks(11) + ticks(12), children: ticks(13) + ticks(14) };
}

const fileName = () => path.relative(process.cwd(), expect.getState().testPath ?? "unknown").replaceAll(path.sep, "__");

if (dir) {
  // At the top of the setup file, which runs before the test file is imported: the file's imports
  // (modules a worker has not loaded yet for an earlier file) count as the file's.
  if (profileDir) {
    if (!worker.suiteProfiler) {
      worker.suiteProfiler = new Session();
      worker.suiteProfiler.connect();
      await worker.suiteProfiler.post("Profiler.enable");
    }
    await worker.suiteProfiler.post("Profiler.start");
  }
  const start = { ...cpuSeconds(), wall: performance.now() };
  // Registered first, so it runs after the file's own afterAll hooks (vitest runs them as a stack).
  afterAll(async () => {
    const end = cpuSeconds();
    const name = fileName();
    const cpu = {
      self: end.self - start.self,
      children: end.children - start.children,
      wall: (performance.now() - start.wall) / 1000,
    };
    writeFileSync(path.join(dir, `${process.pid}-${name}.cpu.json`), JSON.stringify(cpu));
    if (!profileDir) return;
    const { profile } = await worker.suiteProfiler!.post("Profiler.stop");
    writeFileSync(path.join(dir, `${process.pid}-${name}.cpuprofile`), JSON.stringify(profile));
  });
}
