// The log stream of a gateway under test, as the process would write it: the real logger
// (levels, redaction, serializers) writing JSON lines into memory instead of stdout.
import type { Logger } from "pino";
import { createLogger } from "../../src/base/runtime/logging.js";

export interface LogLine {
  level: number;
  msg: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read log fields by name and assert them
  [field: string]: any;
}

export const WARN = 40;

export interface LogCapture {
  logger: Logger;
  lines: LogLine[];
  /** Everything written, as written: a secret must not appear in it anywhere. */
  text(): string;
  /** The lines whose message matches. */
  matching(message: RegExp): LogLine[];
}

export function captureLogs(level: "info" | "debug" = "info"): LogCapture {
  const raw: string[] = [];
  const lines: LogLine[] = [];
  const logger = createLogger(
    { logLevel: level, logFormat: "json" },
    {
      write(line: string) {
        raw.push(line);
        lines.push(JSON.parse(line) as LogLine);
      },
    },
  );
  return {
    logger,
    lines,
    text: () => raw.join(""),
    matching: (message) => lines.filter((line) => message.test(line.msg)),
  };
}
