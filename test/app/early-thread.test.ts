// `start` starts its worker thread before it loads the gateway (src/app/early-thread.ts), so
// both threads load the app at once; a gateway that runs without the thread ends it.
import { expect, it } from "vitest";
import { earlyThreadWanted } from "../../src/app/early-thread.js";
import { startServer } from "../helpers/cli.js";

it("starts the thread ahead only for a start that runs two threads", () => {
  // The default is the setting's own (2 on two or more cores, else 1).
  expect(earlyThreadWanted(["start"], {}, "2")).toBe(true);
  expect(earlyThreadWanted(["start"], { SWITCHBOARD_THREADS: "2" }, "1")).toBe(true);
  expect(earlyThreadWanted(["start"], {}, "1")).toBe(false);
  expect(earlyThreadWanted(["start"], { SWITCHBOARD_THREADS: "1" }, "2")).toBe(false);
  // Refused later by the settings with their own message: no thread meanwhile.
  expect(earlyThreadWanted(["start"], { SWITCHBOARD_THREADS: "3" }, "2")).toBe(false);
  expect(earlyThreadWanted(["start", "--help"], {}, "2")).toBe(false);
  for (const role of ["api", "worker", "migrate", "accounts", "doctor"])
    expect(earlyThreadWanted([role], {}, "2")).toBe(false);
});

// A smoke test of the path where the thread started ahead is ended unused (gateway.ts).
it("serves and stops on an in-memory database, which runs without the thread started ahead", async () => {
  const server = await startServer("start", {
    DATABASE_URL: "sqlite::memory:",
    SWITCHBOARD_THREADS: "2",
    SMPP_SERVER_PORT: "0",
  });
  try {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  } finally {
    await server.stop("SIGTERM");
  }
  expect(await server.exited).toBe(0);
  expect(server.output()).toContain('"msg":"stopped"');
}, 60_000);
