// The values an account's fields take: its statuses, roles and SMS route codes. Lists with no
// imports: the console imports them as they are (its filters, forms and checkboxes).
export const ACCOUNT_STATUSES = ["active", "inactive", "blocked"] as const;
export const ACCOUNT_ROLES = ["customer", "operator"] as const;
/** SMS route codes an account can be given, in the order they are stored. */
export const ACCOUNT_ROUTES = ["T", "P", "PS", "I"] as const;
export type AccountRoute = (typeof ACCOUNT_ROUTES)[number];
/** How DLT templates are matched: whitespace as registered (`strict`, new accounts), or runs of it as one space (`lenient`). */
export const DLT_MATCHING_MODES = ["strict", "lenient"] as const;
export type DltMatching = (typeof DLT_MATCHING_MODES)[number];
