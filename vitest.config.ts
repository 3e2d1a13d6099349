import { defineConfig } from "vitest/config";
import SlowestFirstSequencer from "./test/helpers/sequencer.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "web/test/**/*.test.tsx"],
    setupFiles: [
      "./test/helpers/pg-deprecations.ts",
      "./test/helpers/cheap-hashes.ts",
      "./test/helpers/suite-profile.ts",
    ],
    // Migrates the databases that each test file's database is copied from, once per run.
    globalSetup: ["./test/helpers/global-setup.ts"],
    // The slowest files first (test/file-durations.json), so the workers finish together.
    sequence: { sequencer: SlowestFirstSequencer },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The global teardown drops the run's PostgreSQL databases, ten at a time, each waiting for a
    // checkpoint: vitest's 10 s default cut it short and left them on the server.
    teardownTimeout: 300_000,
    pool: "forks",
    // Four files at a time on two cores: the forks wait on sockets, processes and timers most of
    // a file, and with three the machine's two cores were 81 % busy over a run (process
    // accounting: 608 CPU-s in 375 s); with four 88 %, the run 342 s (docs/benchmarks.md).
    maxWorkers: 4,
    isolate: false,
    // Memory tests measure what is live, not what the shared process has yet to collect.
    execArgv: ["--expose-gc"],
    reporters: ["default", "./test/helpers/summary-reporter.ts"],
  },
});
