// What a process that cannot take its address says, in words an operator acts on: which
// setting to change, and whether the first start's credentials exist (and how to replace them).

import type { Config } from "../base/runtime/config.js";
import { NEW_CREDENTIALS_HELP } from "./bootstrap.js";

export function listenFailure(
  error: unknown,
  config: Pick<Config, "host"> & { port: number | string },
  seeded: boolean,
  /** The setting that names the port (SMPP_SERVER_PORT for the SMPP server's). */
  setting = "PORT",
): Error {
  const where = `${config.host}:${config.port}`;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const problem =
    code === "EADDRINUSE"
      ? `cannot listen on ${where}: the port is in use (another Switchboard, or another program). Stop it, or set ${setting} to a free port${setting === "PORT" ? " (PORT=0 picks one)" : " (0 turns it off)"}.`
      : code === "EACCES"
        ? `cannot listen on ${where}: permission denied (ports below 1024 need privileges). Set ${setting} to 1024 or above.`
        : code === "EADDRNOTAVAIL" || code === "ENOTFOUND"
          ? `cannot listen on ${where}: HOST is not an address of this machine. Set HOST to one (127.0.0.1, or 0.0.0.0 for every address).`
          : `cannot listen on ${where}: ${error instanceof Error ? error.message : String(error)}`;
  const credentials = seeded
    ? `The database already has its accounts; their credentials were printed by its first start.\n${NEW_CREDENTIALS_HELP}`
    : "Nothing was created: the first start that listens prints the operator and demo credentials.";
  return new Error(`${problem}\n${credentials}`, { cause: error });
}
