// The young generation kept at its first size until the gateway is under load (issue 43). V8
// doubles an isolate's young generation, up to 2 × 16 MB, after scavenges most of whose objects
// survive; loading the application's modules and its first minutes are that, so both threads of
// a `start` grew theirs to the maximum and kept it while idle (about 25 MB of RSS). Under load a
// small young generation costs CPU per message (a scavenge every megabyte, and short-lived
// objects promoted; docs/benchmarks.md), so there it grows as it always did: from the first
// second with many scavenges on the main thread. The growth factor is a V8 flag of the whole
// process, read at each growth (v8.setFlagsFromString), so it holds every thread's isolate.
import { constants, type PerformanceEntry, PerformanceObserver } from "node:perf_hooks";
import v8 from "node:v8";

/** V8's own semi_space_growth_factor (flag-definitions.h). */
const V8_GROWTH_FACTOR = 2;
/** Scavenges of the main thread in one second that mean load: about 10 MB/s allocated. */
const SCAVENGES_UNDER_LOAD = 10;

let held = false;

/** Whether the operator sized the young generation on node's command line: theirs is kept. */
function sizedByOperator(): boolean {
  const flags = `${process.execArgv.join(" ")} ${process.env.NODE_OPTIONS ?? ""}`;
  return /semi[-_]space/.test(flags);
}

/** Stops every thread's young generation from growing (a `start` process, from its first line). */
export function holdYoungGeneration(): void {
  if (sizedByOperator()) return;
  v8.setFlagsFromString("--semi-space-growth-factor=1");
  held = true;
}

/** Lets it grow again at once. */
export function releaseYoungGeneration(): void {
  if (!held) return;
  v8.setFlagsFromString(`--semi-space-growth-factor=${V8_GROWTH_FACTOR}`);
  held = false;
}

/**
 * Lets the young generation grow when the main thread is under load (SCAVENGES_UNDER_LOAD in a
 * second), if it is held. Returns what stops watching.
 */
export function releaseYoungGenerationUnderLoad(): () => void {
  if (!held) return () => undefined;
  let second = 0;
  let scavenges = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const { kind } = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail ?? {};
      if (kind !== constants.NODE_PERFORMANCE_GC_MINOR) continue;
      if (entry.startTime - second >= 1_000) {
        second = entry.startTime;
        scavenges = 0;
      }
      if (++scavenges < SCAVENGES_UNDER_LOAD) continue;
      releaseYoungGeneration();
      observer.disconnect();
      return;
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  return () => observer.disconnect();
}
