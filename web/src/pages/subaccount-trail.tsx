// Where an account below the reader sits in its tree, carried in the query string so that a page
// of it can be shared: `subaccount` the account, `via` each account above it from the first level
// down. Its pages (sub-accounts, messages, refused sends, SMPP binds) link each other with it and
// lead back to the list that holds it; a trail no tree can have leads back to the reader's own.
import { withQuery } from "../api.js";
import { Link } from "../router.js";

/** As deep as the gateway follows a tree of resellers (MAX_DEPTH of src/domain/accounts/). */
const MAX_LEVELS = 64;
/** The longest username (USERNAME_MAX_LENGTH of src/base/core/usernames.ts). */
const MAX_NAME = 64;

/**
 * The accounts from the first level below the reader down to `account`, `via` those above it;
 * none without an account. A `via` no tree has (a name empty, too long or twice, too many levels)
 * is left out: the account's pages then lead back to the reader's own list.
 */
export function trailFrom(account: string | null | undefined, via: readonly string[]): string[] {
  const name = account?.trim();
  if (!name) return [];
  const trail = [...via.map((level) => level.trim()), name];
  const names = new Set(trail.map((level) => level.toLowerCase()));
  const possible =
    trail.length <= MAX_LEVELS &&
    names.size === trail.length &&
    trail.every((level) => level !== "" && level.length <= MAX_NAME);
  return possible ? trail : [name];
}

/** The trail a page's query string holds (`subaccount` and its `via`). */
export function trailOf(query: URLSearchParams): string[] {
  return trailFrom(query.get("subaccount"), query.getAll("via"));
}

/** `path` with the accounts above the last of `trail` as `via`: the page adds `subaccount` itself. */
export function viaPath(path: string, trail: readonly string[]): string {
  const params = new URLSearchParams();
  for (const name of trail.slice(0, -1)) params.append("via", name);
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** `path` (messages, refusals, SMPP binds, sub-accounts) of the last account of `trail`. */
export function trailLink(path: string, trail: readonly string[]): string {
  return withQuery(viaPath(path, trail), { subaccount: trail.at(-1) });
}

/** The list of the sub-accounts of the last account of `trail`; the reader's own for an empty trail. */
export function treeLink(trail: readonly string[]): string {
  return trailLink("/subaccounts", trail);
}

/** The way back from a page of the last account of `trail` to the list that holds it, named for whose it is. */
export function BackToTree({ trail }: { trail: readonly string[] }) {
  const above = trail.slice(0, -1);
  return (
    <Link to={treeLink(above)}>
      {above.length === 0 ? "Your" : `${above.at(-1)}'s`}{" "}
      {/* Not broken at its hyphen on a narrow screen, "sub-" on one line and "accounts" on the next. */}
      <span style={{ whiteSpace: "nowrap" }}>sub-accounts</span>
    </Link>
  );
}
