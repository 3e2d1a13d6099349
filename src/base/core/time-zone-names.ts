// Whether a name is an IANA time zone the runtime knows: one check for the configuration, the
// CLI and the accounts, with no date library loaded (the CLI's start time counts every import).

/** True when `name` is an IANA time zone name (Asia/Kolkata, UTC) known to this Node.js. */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
