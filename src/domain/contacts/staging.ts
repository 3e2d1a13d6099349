// An upload's valid contacts, held until the whole source has been read, so that none is written
// before the upload is known whole (a malformed line, a body over the limit, a client that stalls
// or hangs up then leaves nothing): in memory for a JSON list (at most 10,000 entries), in a
// temporary file for a CSV (up to CONTACTS_UPLOAD_MAX_MB, never held whole in memory).

import { once } from "node:events";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { finished } from "node:stream/promises";

/** A valid contact waiting for the import: its line (CSV) or index (JSON), number as stored, name. */
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

/**
 * A staging file in a directory of its own under the system's temporary directory (private to
 * the service under systemd's PrivateTmp), one entry a line: `at number`, then ` "name"` (a JSON
 * string) when it has one; about 1.5 times the bytes of a file of bare numbers.
 */
export async function fileStaging(): Promise<Staging> {
  const dir = await mkdtemp(join(tmpdir(), "switchboard-contacts-"));
  const path = join(dir, "staged.jsonl");
  const out = createWriteStream(path);
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
      out.destroy();
      await rm(dir, { recursive: true, force: true });
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
