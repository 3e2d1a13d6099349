// Whether a process runs, by its id: lock files, staging files and DND import side tables name
// their owner's pid, and a dead owner's (kill -9, a crash, a power cut) are taken over or removed.
import { randomBytes } from "node:crypto";

/**
 * This load of the gateway's code: staging files and DND import side tables carry it beside the
 * pid, so that what an earlier run under the same pid left (a container's pid 1 restarted) is
 * told from this run's.
 */
export const PROCESS_INSTANCE = randomBytes(6).toString("hex");

/** Whether a process of this id runs on this machine (EPERM: it does, as another user). */
export function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Whether what a process named by pid and instance left is an earlier run's: its process stopped, or this pid's earlier load. */
export function ownerStopped(pid: number, instance: string): boolean {
  return pid === process.pid ? instance !== PROCESS_INSTANCE : !processRunning(pid);
}
