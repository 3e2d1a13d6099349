// The package's version, read from package.json two folders up (from src/app and from dist/app alike).
import fs from "node:fs";

let cached: string | undefined;

export function packageVersion(): string {
  cached ??= (
    JSON.parse(fs.readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
  ).version;
  return cached;
}
