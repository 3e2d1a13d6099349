// Setup file of every test file: the passwords of the accounts tests build (buildAccount, whose
// passwords start with CHEAP_PASSWORD_PREFIX) are hashed with argon2id at its least cost (1 MiB,
// one pass) instead of the 19 MiB and two passes every other password gets. A run made 2,190
// such hashes and 1,137 checks of them, 11 ms of CPU each at the real cost against 1.3 and 0.3 ms
// at the least: about 34 of its 830 CPU-seconds on 2 cores. A check reads the cost from the
// hash itself, so the same code checks both. Every other password keeps the real cost: the
// operator's and the CLI's, the dummy hash an unknown username is checked against, and the
// accounts of the tests that time or race the check (they pass a password of their own).
import { vi } from "vitest";

export const CHEAP_PASSWORD_PREFIX = "pw-";

vi.mock("@node-rs/argon2", async (importOriginal) => {
  const argon2 = await importOriginal<typeof import("@node-rs/argon2")>();
  const hash: typeof argon2.hash = (password, options, signal) =>
    typeof password === "string" && password.startsWith(CHEAP_PASSWORD_PREFIX)
      ? argon2.hash(password, { ...options, memoryCost: 1024, timeCost: 1 }, signal)
      : argon2.hash(password, options, signal);
  return { ...argon2, hash };
});

/** A random password hashed at the real cost: for the tests that time or race the check. */
export function realCostPassword(): string {
  return `real-cost-${Math.random().toString(36).slice(2)}`;
}
