// Whether a process runs, by its id: lock files and staging files name their owner's pid, and a
// dead owner's (kill -9, a crash, a power cut) are taken over or removed.

/** Whether a process of this id runs on this machine (EPERM: it does, as another user). */
export function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
