// bench/fuzz's figures per surface (a property of test/fuzz/, one line each in FUZZ_COUNTS_FILE):
// requests sent, refused and accepted, answers of 500 or more, event-loop stalls while it ran,
// the server's heap after forced collections before and after it, and its slowest answer.

const mib = (bytes) => (bytes ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : "-");

/** The figures FUZZ_COUNTS_FILE holds, in the order the properties ran. */
export function readFigures(text) {
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

/**
 * Whether a stall seen by the scrape at `at` (covering the 250 ms before it, and the scrape's
 * own wait) came from a heap measurement: the forced collections stop the server's loop.
 */
export function duringHeapMeasurement(at, figures) {
  return figures.some((f) => (f.heapMeasuredAt ?? []).some((measured) => at >= measured && at - measured <= 1_500));
}

/** A markdown table for docs/benchmarks.md; `stalls`: when each stall over the threshold was seen (epoch ms). */
export function surfaceTable(figures, stalls) {
  const lines = [
    "| Surface | Requests | Refused | Accepted | 5xx | Stalls | Heap before | Heap after | Slowest answer |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const f of figures) {
    const during = stalls.filter((s) => s.at >= f.startedAt && s.at <= f.endedAt && !duringHeapMeasurement(s.at, [f]));
    lines.push(
      `| ${f.family} | ${f.accepted + f.refused} | ${f.refused} | ${f.accepted} | ${f.serverErrors ?? 0} | ${during.length} | ` +
        `${mib(f.heapBefore)} | ${mib(f.heapAfter)} | ${f.slowestMs.toFixed(0)} ms |`,
    );
  }
  return lines;
}
