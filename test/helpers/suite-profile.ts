// Setup file of every test file: with SUITE_PROFILE_DIR set, each test file's CPU profile (the
// worker's main thread, from its first beforeAll to its last afterAll) is written there as
// <pid>-<file>.cpuprofile; bench/suite-profile.mjs adds them up by file, package and function.
// vitest ends its forks without a normal exit, so node's --cpu-prof writes nothing for them; the
// inspector's profiler, stopped after each file, does. Without the variable it does nothing.
// With SUITE_PROFILE_DIR or SUITE_CPU_DIR, <pid>-<file>.cpu.json holds the file's CPU time as the
// kernel counts it (the worker's threads, and the child processes it reaped meanwhile: spawned
// gateways and CLIs), which a loaded machine does not inflate as it does the profile's samples
// (the profiler samples wall time). SUITE_CPU_DIR alone writes only that, without the profiler's cost.
// `descendants` is what the worker's descendants alive at the file's end used since its start:
// the worker's shared Chromium (test/helpers/browser.ts) outlives each file, so `children` never
// counted a browser file's pages (its whole CPU fell on the file it was reaped in, once closed).
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import path from "node:path";
import { afterAll, expect } from "vitest";

const profileDir = process.env.SUITE_PROFILE_DIR;
const dir = profileDir ?? process.env.SUITE_CPU_DIR;
const worker = globalThis as { suiteProfiler?: Session };

/** CPU-seconds of this process (all its threads) and of its reaped children, from /proc. */
function cpuSeconds(): { self: number; children: number } {
  // utime is the 12th field after the command; stime, cutime, cstime follow.
  const fields = statFields("self");
  const ticks = (i: number) => Number(fields[i]) / 100;
  return { self: ticks(11) + ticks(12), children: ticks(13) + ticks(14) };
}

/** Fields of /proc/PID/stat after the command's closing parenthesis (the command may hold spaces). */
function statFields(pid: number | "self"): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/**
 * CPU-seconds (with their own reaped children) of each live descendant of this process, by pid:
 * a process alive at a file's start and end used the difference meanwhile.
 */
function descendantSeconds(): Map<number, number> {
  const parents = new Map<number, number>();
  const seconds = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      // ppid is the 2nd field, utime the 12th; stime, cutime, cstime follow.
      const fields = statFields(pid);
      parents.set(pid, Number(fields[1]));
      seconds.set(
        pid,
        [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]) / 100, 0),
      );
    } catch {
      // Ended between the listing and the read.
    }
  }
  const mine = new Map<number, number>();
  for (const [pid, cpu] of seconds) {
    let ancestor = parents.get(pid);
    while (ancestor !== undefined && ancestor > 1 && ancestor !== process.pid) ancestor = parents.get(ancestor);
    if (ancestor === process.pid) mine.set(pid, cpu);
  }
  return mine;
}

/** What the descendants alive now used since `start` (all of it for those born since). */
function descendantsUsedSince(start: Map<number, number>): number {
  let used = 0;
  for (const [pid, cpu] of descendantSeconds()) used += cpu - (start.get(pid) ?? 0);
  return used;
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
  const start = { ...cpuSeconds(), descendants: descendantSeconds(), wall: performance.now() };
  // Registered first, so it runs after the file's own afterAll hooks (vitest runs them as a stack).
  afterAll(async () => {
    const end = cpuSeconds();
    const name = fileName();
    const cpu = {
      self: end.self - start.self,
      children: end.children - start.children,
      descendants: descendantsUsedSince(start.descendants),
      wall: (performance.now() - start.wall) / 1000,
    };
    writeFileSync(path.join(dir, `${process.pid}-${name}.cpu.json`), JSON.stringify(cpu));
    if (!profileDir) return;
    const { profile } = await worker.suiteProfiler!.post("Profiler.stop");
    writeFileSync(path.join(dir, `${process.pid}-${name}.cpuprofile`), JSON.stringify(profile));
  });
}
