// Preloaded into the gateway process by bench/fuzz/run.mjs (node --expose-gc --require): SIGUSR2
// runs a full collection and prints a line, so that the heap /metrics reports next is what is
// live, not what the collector has yet to free.
process.on("SIGUSR2", () => {
  globalThis.gc?.();
  globalThis.gc?.();
  process.stdout.write(`fuzz-gc ${process.memoryUsage().heapUsed}\n`);
});
