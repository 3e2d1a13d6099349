// Recognises the errors of a database that is restarting or unreachable (as opposed to a bad
// statement): such a failure is temporary, answered 503 and retried, never treated as a bug.
// Also: the error of a row a unique index refused.

/** Node's socket errors when the server is not there or the connection broke. */
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENETUNREACH"]);
/**
 * SQLSTATE: admin_shutdown, crash_shutdown, cannot_connect_now (starting up or shutting down),
 * and too_many_connections (53300: every connection the server or the role allows is taken, by
 * other processes on a shared server; the pool's next connection is refused until one ends).
 */
const SHUTDOWN_STATES = new Set(["57P01", "57P02", "57P03", "53300"]);
/** What node-postgres throws when a connection ends under a query, or is used after that. */
const PG_CONNECTION_LOST =
  /^Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect/;

export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") {
    if (SOCKET_CODES.has(code) || SHUTDOWN_STATES.has(code)) return true;
    // Class 08: connection exception.
    if (/^08[0-9A-Z]{3}$/.test(code)) return true;
  }
  if (PG_CONNECTION_LOST.test(error.message)) return true;
  // Several addresses refused (localhost as ::1 and 127.0.0.1): Node reports them together.
  if (error instanceof AggregateError) return error.errors.some(isDatabaseUnavailable);
  return false;
}

/** A unique index or primary key refused a row: SQLite and PostgreSQL name it differently. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}
