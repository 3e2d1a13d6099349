// Prints the plain closing line CI reads: `N passed, N failed, N skipped`.
import type { Reporter, TestModule } from "vitest/node";

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of modules) {
      let failedHere = 0;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failedHere++;
        else skipped++;
      }
      // A failing beforeAll/afterAll (or an import error) fails its suite while its tests
      // show as skipped: each such error is a failure of its own.
      failedHere += module.errors().length;
      for (const suite of module.children.allSuites()) failedHere += suite.errors().length;
      if (module.state() === "failed" && failedHere === 0) failedHere = 1;
      failed += failedHere;
    }
    failed += unhandledErrors.length;
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
