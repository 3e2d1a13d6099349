// Setup file of every test file: a pg deprecation warning (a second query on a client that is
// still running one, which pg 9 turns into an error) fails the test during which it appeared.
import { afterAll, afterEach } from "vitest";

// One listener per process: test files share their worker process (isolate: false) and each
// runs this file, so a listener per file passed Node's limit of 10 and the warning about that
// reached tests that watch for warnings (test/store/signals.test.ts).
const SEEN = Symbol.for("switchboard.test.pgDeprecations");
const shared = globalThis as { [SEEN]?: string[] };
if (!shared[SEEN]) {
  const list: string[] = [];
  process.on("warning", (warning) => {
    if (warning.name === "DeprecationWarning" && warning.message.includes("pg@9")) list.push(warning.message);
  });
  shared[SEEN] = list;
}
const seen = shared[SEEN];

function failOnPgDeprecations() {
  if (seen.length === 0) return;
  const messages = seen.splice(0);
  throw new Error(`pg deprecation warning: ${messages.join("; ")}`);
}

afterEach(failOnPgDeprecations);
afterAll(failOnPgDeprecations);
