// Starts the slowest test files first (vitest `sequence.sequencer`), so that the workers, each
// taking the next file when it finishes one, end together instead of one running a 100-second
// file while the others are idle. The durations are the committed test/file-durations.json
// (seconds per file, from a whole run's JSON report: `node test/helpers/file-durations.mjs
// <report.json>`), not vitest's own cache, which a fresh clone (CI) does not have. Files it
// does not list yet (new ones) go first, larger before smaller, as vitest does with files it
// has no time for.
import fs from "node:fs";
import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

export const DURATIONS_FILE = "test/file-durations.json";

function readDurations(root: string): Record<string, number> {
  try {
    return JSON.parse(fs.readFileSync(path.join(root, DURATIONS_FILE), "utf8")) as Record<string, number>;
  } catch {
    return {};
  }
}

export default class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const durations = readDurations(root);
    const known = (spec: TestSpecification) => durations[path.relative(root, spec.moduleId).split(path.sep).join("/")];
    const size = (spec: TestSpecification) => {
      try {
        return fs.statSync(spec.moduleId).size;
      } catch {
        return 0;
      }
    };
    return [...files].sort((a, b) => {
      const [da, db] = [known(a), known(b)];
      if (da === undefined && db === undefined) return size(b) - size(a);
      if (da === undefined) return -1;
      if (db === undefined) return 1;
      return db - da;
    });
  }
}
