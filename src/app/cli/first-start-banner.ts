// Where the first start's credentials go. On a terminal, or a pipe a person or a test reads: the
// banner, on stdout. When stdout is the systemd journal (JOURNAL_STREAM names it), a log stream
// kept and shipped: never the credentials themselves. They go to a file only this user can read
// (0600) beside the SQLite database, in $STATE_DIRECTORY, or in the working directory, and one
// log line says where; when none can be written, the line says how to make new ones.
import fs from "node:fs";
import path from "node:path";
import type { Logger } from "pino";
import type { Config } from "../../base/runtime/config.js";

/** Whether stdout is the journal: JOURNAL_STREAM is "device:inode" of the stream systemd connected. */
export function stdoutIsJournal(env: NodeJS.ProcessEnv = process.env): boolean {
  const [device, inode] = (env.JOURNAL_STREAM ?? "").split(":");
  if (!device || !inode) return false;
  try {
    const stat = fs.fstatSync(1, { bigint: true });
    return String(stat.dev) === device && String(stat.ino) === inode;
  } catch {
    return false;
  }
}

function candidateDirectories(config: Pick<Config, "database">, env: NodeJS.ProcessEnv): string[] {
  const dirs: string[] = [];
  if (config.database.engine === "sqlite" && config.database.file !== ":memory:") {
    dirs.push(path.dirname(config.database.file));
  }
  // systemd's StateDirectory= (the first, when it names several).
  if (env.STATE_DIRECTORY) dirs.push(env.STATE_DIRECTORY.split(":")[0]!);
  dirs.push(process.cwd());
  return dirs;
}

/** Shows the banner: on stdout, or (stdout the journal) in a 0600 file that a log line names. */
export function showFirstStartBanner(
  banner: string,
  config: Pick<Config, "database">,
  logger: Pick<Logger, "warn">,
  env: NodeJS.ProcessEnv = process.env,
): void {
  if (!stdoutIsJournal(env)) {
    process.stdout.write(banner);
    return;
  }
  const name = `switchboard-first-start-${new Date().toISOString().replace(/[:.]/g, "-")}.txt`;
  const failures: string[] = [];
  for (const dir of candidateDirectories(config, env)) {
    const file = path.resolve(dir, name);
    try {
      // wx: never through a file (or a link) already there; 0600 from the start, not after.
      fs.writeFileSync(file, banner, { mode: 0o600, flag: "wx" });
      logger.warn(
        { file },
        `first start: the operator's and the demo account's credentials are in ${file} (mode 0600, readable by this user only), not in the log; read it, then delete it`,
      );
      return;
    } catch (error) {
      failures.push(`${file}: ${(error as Error).message}`);
    }
  }
  logger.warn(
    { tried: failures },
    "first start: the operator and demo accounts were created, but their credentials could not be written to a file and are not logged; make new ones with `switchboard keys create --account demo` and `switchboard accounts set --username admin --password …` (docs/deployment.md)",
  );
}
