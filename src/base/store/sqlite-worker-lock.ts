// One dispatcher per SQLite file: SQLite's dispatcher claims without leases (see
// messages/transitions.ts), so a second process dispatching from the same file would submit
// the same messages again. A lock file holds the owner's pid; a dead owner's lock (kill -9,
// power loss) is taken over.
import fs from "node:fs";
import { processRunning } from "./processes.js";

/** Takes the lock for `databaseFile`; returns its release function, or throws when a live process holds it. */
export function acquireWorkerLock(databaseFile: string): () => void {
  const lockPath = `${databaseFile}.worker.lock`;
  const release = () => {
    try {
      if (Number(fs.readFileSync(lockPath, "utf8")) === process.pid) fs.rmSync(lockPath, { force: true });
    } catch {
      // Already gone.
    }
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(lockPath, String(process.pid), { flag: "wx" });
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const owner = Number(fs.readFileSync(lockPath, "utf8").trim());
      if (owner && owner !== process.pid && processRunning(owner)) {
        throw new Error(
          `Another switchboard process (pid ${owner}) is already dispatching from ${databaseFile}. SQLite allows one; stop it, or use PostgreSQL to run several workers.`,
        );
      }
      fs.rmSync(lockPath, { force: true });
    }
  }
  throw new Error(`Could not take the worker lock ${lockPath}.`);
}
