// An upload's valid entries (contacts, DND numbers), held until the whole source has been read,
// so that none is written before the upload is known whole (a malformed line, a body over the
// limit, a client that stalls or hangs up then leaves nothing): in memory for a JSON list (at
// most 10,000 entries), in a staging file for a CSV (never held whole in memory). Staging files
// live in a directory of the gateway's own, and a start removes those a killed process left.

import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { createReadStream, createWriteStream } from "node:fs";
import { lstat, mkdir, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { finished } from "node:stream/promises";
import { ownerStopped, PROCESS_INSTANCE } from "../store/processes.js";

/** A valid entry waiting for the import: its line (CSV) or index (JSON), number as stored, name. */
export interface Pending {
  at: number;
  number: string;
  name: string | null;
}

export interface Staging {
  add(entry: Pending): Promise<void> | undefined;
  /** The staged entries in order, `size` at a time; called once, after the last add. */
  chunks(size: number): AsyncIterable<Pending[]>;
  /** Frees what the staging holds (its file); safe to call more than once. */
  discard(): Promise<void>;
}

export function memoryStaging(): Staging {
  let entries: Pending[] = [];
  return {
    add(entry) {
      entries.push(entry);
      return undefined;
    },
    async *chunks(size) {
      for (let i = 0; i < entries.length; i += size) yield entries.slice(i, i + size);
    },
    async discard() {
      entries = [];
    },
  };
}

/** Lines written to the file at once: fewer, larger writes. */
const WRITE_AT = 64 * 1024;

const STAGED = /^(\d+)-([0-9a-f]+)-[0-9a-f-]+\.staged$/;

/**
 * The staging directory: `switchboard-staging-<uid>` in the system's temporary directory (private
 * to the service under systemd's PrivateTmp), mode 0700. Created when missing; refused when it is
 * not a directory this user owns (a link, or another user's), rather than written through.
 */
export function stagingDirectory(): string {
  return join(tmpdir(), `switchboard-staging-${process.getuid?.() ?? "user"}`);
}

async function ownedDirectory(): Promise<string> {
  const dir = stagingDirectory();
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const stat = await lstat(dir);
  if (!stat.isDirectory() || (process.getuid !== undefined && stat.uid !== process.getuid())) {
    throw new Error(`The staging directory ${dir} is not a directory this user owns.`);
  }
  return dir;
}

/**
 * Removes the staging files that processes no longer running left (killed mid-upload: kill -9, a
 * crash, a power cut), and those of an earlier run under this process's own id (a container's
 * pid 1 restarted); a running process's files, and this run's, stay. Answers how many it removed.
 */
export async function sweepStaging(): Promise<number> {
  let names: string[];
  try {
    names = await readdir(await ownedDirectory());
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const match = STAGED.exec(name);
    if (!match) continue;
    if (!ownerStopped(Number(match[1]), match[2] ?? "")) continue;
    await rm(join(stagingDirectory(), name), { force: true });
    removed += 1;
  }
  return removed;
}

/**
 * A staging file, `<pid>-<instance>-<uuid>.staged` in the staging directory, one entry a line:
 * `at number`, then ` "name"` (a JSON string) when it has one; about 1.5 times the bytes of a
 * file of bare numbers.
 */
export async function fileStaging(): Promise<Staging> {
  const path = join(await ownedDirectory(), `${process.pid}-${PROCESS_INSTANCE}-${randomUUID()}.staged`);
  const out = createWriteStream(path, { flags: "wx", mode: 0o600 });
  let failure: Error | undefined;
  out.on("error", (error) => {
    failure = error;
  });
  let buffered = "";

  const write = async (text: string) => {
    if (failure) throw failure;
    // once() rejects when the file fails while the write waits.
    if (!out.write(text)) await once(out, "drain");
  };

  return {
    add(entry) {
      buffered += `${entry.at} ${entry.number}${entry.name === null ? "" : ` ${JSON.stringify(entry.name)}`}\n`;
      if (buffered.length < WRITE_AT) return undefined;
      const text = buffered;
      buffered = "";
      return write(text);
    },
    async *chunks(size) {
      out.end(buffered);
      buffered = "";
      await finished(out);
      if (failure) throw failure;
      const input = createReadStream(path);
      const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
      let chunk: Pending[] = [];
      try {
        for await (const line of lines) {
          chunk.push(stagedEntry(line));
          if (chunk.length === size) {
            yield chunk;
            chunk = [];
          }
        }
      } finally {
        lines.close();
        input.destroy();
      }
      if (chunk.length > 0) yield chunk;
    },
    async discard() {
      // Closed first: a file still being opened would otherwise be created after its removal.
      if (!out.closed) {
        const closed = new Promise<void>((resolve) => out.once("close", () => resolve()));
        out.destroy();
        await closed;
      }
      await rm(path, { force: true });
    },
  };
}

/** An entry as a line of the staging file has it (numbers are digits only, so spaces part the fields). */
function stagedEntry(line: string): Pending {
  const afterAt = line.indexOf(" ");
  const afterNumber = line.indexOf(" ", afterAt + 1);
  const at = Number(line.slice(0, afterAt));
  if (afterNumber === -1) return { at, number: line.slice(afterAt + 1), name: null };
  return { at, number: line.slice(afterAt + 1, afterNumber), name: JSON.parse(line.slice(afterNumber + 1)) as string };
}
