// CPU of one request log line (src/app/request-log.ts through src/runtime/logging.ts: redaction
// and secret scrubbing) against the same line through a bare pino logger, written to stdout.
// Usage: node bench/request-log.mjs [--lines 200000] > /dev/null   (or | cat > /dev/null for a pipe)
import { parseArgs } from "node:util";
import pino from "pino";
import { createLogger } from "../dist/base/runtime/logging.js";

const { values } = parseArgs({ options: { lines: { type: "string", default: "200000" } } });
const lines = Number(values.lines);

function cpuPerLine(logger) {
  const child = logger.child({ reqId: "5d0c9d6e-3b7e-4a47-9f0e-9d5c1c7f3a11" });
  const write = () =>
    child.info(
      {
        http: {
          method: "POST",
          route: "/api/v2/sms/send",
          url: "/api/v2/sms/send?api_key=sb_0123456789abcdef",
          status: 200,
          ms: 3.4,
          ip: "127.0.0.1",
          account: "demo",
        },
      },
      "POST /api/v2/sms/send 200",
    );
  for (let i = 0; i < 20_000; i++) write();
  const start = process.cpuUsage();
  for (let i = 0; i < lines; i++) write();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / lines;
}

const results = [];
for (let round = 0; round < 2; round++) {
  results.push(["bare pino", cpuPerLine(pino({ level: "info" }))]);
  results.push(["switchboard", cpuPerLine(createLogger({ logLevel: "info", logFormat: "json" }))]);
}
for (const [name, us] of results) process.stderr.write(`${name}: ${us.toFixed(2)} µs CPU per line\n`);
