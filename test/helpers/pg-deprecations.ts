// Setup file of every test file: a pg deprecation warning (a second query on a client that is
// still running one, which pg 9 turns into an error) fails the test during which it appeared.
import { afterAll, afterEach } from "vitest";

const seen: string[] = [];

process.on("warning", (warning) => {
  if (warning.name === "DeprecationWarning" && warning.message.includes("pg@9")) seen.push(warning.message);
});

function failOnPgDeprecations() {
  if (seen.length === 0) return;
  const messages = seen.splice(0);
  throw new Error(`pg deprecation warning: ${messages.join("; ")}`);
}

afterEach(failOnPgDeprecations);
afterAll(failOnPgDeprecations);
