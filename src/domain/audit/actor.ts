// Who made a change, as the audit log records it: the account whose credentials were used, how
// (a console session, an account's API key, the operator API, the CLI) and from where.
import { hostname, userInfo } from "node:os";

/** How the change came in. */
export type AuditChannel = "console" | "api" | "operator_api" | "cli";

export interface Actor {
  /** The account whose credentials made the change; null for the CLI. */
  accountId: number | null;
  /** That account's username; `cli` for the CLI. */
  username: string;
  /** The login that acted: a session's, or the one that made the API key that acted (decision 0174). */
  user?: string;
  channel: AuditChannel;
  /** `session:<id>`, `key:<id>`, or for the CLI `<os user>@<host>`. */
  credential: string | null;
  /** The client's address; null for the CLI. */
  address: string | null;
}

/** The CLI as an actor: it signs in as nobody, so the operating-system user and host say who. */
export function cliActor(): Actor {
  let user: string;
  try {
    user = userInfo().username;
  } catch {
    // A uid without a passwd entry (some containers): the variable the shell set, if any.
    user = process.env.USER ?? process.env.LOGNAME ?? `uid ${process.getuid?.() ?? "?"}`;
  }
  return { accountId: null, username: "cli", channel: "cli", credential: `${user}@${hostname()}`, address: null };
}
