// Where an account below the reader sits in its tree, carried in the query string so that a page
// of it can be shared: `subaccount` the account, `via` each account above it from the first level
// down. Its pages (sub-accounts, messages, refused sends, SMPP binds) link each other with it, show
// it from the top (TreeTrail) and lead back to the list that holds it, or with `back=own` to the
// account's own list they were opened from; a trail no tree can have leads back to the reader's own.
// The API names the levels above the account (`subaccount_via`), and they outrank the URL's: a link
// typed by hand or shared without `via` still shows the account where it is (useTrail).
import { useRef } from "react";
import { Link, useLocation } from "../router.js";

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

/** The account a page's query string names; "" (the reader's own page) without one or for a blank one. */
export function subaccountOf(query: URLSearchParams): string {
  return query.get("subaccount")?.trim() ?? "";
}

/**
 * Where a page of the last account of a trail leads back to: the list that holds it, or (`own`)
 * the account's own list of sub-accounts, the page it was opened from (`back=own` in its query).
 */
export type WayBack = "holder" | "own";

/** The way back a page's query string asks for; anything but `back=own` is the list that holds it. */
export function wayBackOf(query: URLSearchParams): WayBack {
  return query.get("back") === "own" ? "own" : "holder";
}

/** The query of a page of the last account of `trail`: `via`, then `subaccount` unless `account` is false, then `back`. */
function trailQuery(trail: readonly string[], wayBack: WayBack, account: boolean): string {
  const params = new URLSearchParams();
  for (const name of trail.slice(0, -1)) params.append("via", name);
  if (account && trail.length > 0) params.set("subaccount", trail.at(-1) ?? "");
  if (wayBack === "own" && trail.length > 0) params.set("back", "own");
  return params.toString();
}

/** Where a page of an account below the reader places it (useTrail). */
export interface PageTrail {
  /** The account the page is of (subaccountOf); "" for the reader's own page. */
  account: string;
  trail: string[];
  wayBack: WayBack;
  /**
   * Whether the levels above the account are known: the API told them, or the URL holds `via` (a
   * link the console made); always on the reader's own page. Until then a page says nothing of its
   * place rather than call an account further down "your sub-account".
   */
  known: boolean;
}

/**
 * The trail of the page's account, from the API's answer for it (`read`, a query whose answer holds
 * `subaccount_via`) once it came, else the URL's `via`; the levels an answer told are kept for
 * the account while its next page loads. A read that failed (a name outside the tree) keeps the
 * URL's trail.
 */
export function useTrail(read: { data?: { subaccount_via?: readonly string[] }; isError: boolean }): PageTrail {
  const { query } = useLocation();
  const account = subaccountOf(query);
  const told = useRef<{ account: string; via: readonly string[] }>(undefined);
  const answered = read.data?.subaccount_via;
  if (answered) told.current = { account, via: answered };
  const levels = told.current?.account === account ? told.current.via : undefined;
  const via = query.getAll("via");
  const trail = trailFrom(account, levels ?? via);
  // A `via` no tree has (trailFrom left it out) says no more of the depth than none.
  const viaPossible = via.length > 0 && trail.length === via.length + 1;
  const known = account === "" || levels !== undefined || viaPossible || read.isError;
  return { account, trail, wayBack: wayBackOf(query), known };
}

/** `path` with the accounts above the last of `trail` as `via` (and its way back): the page adds `subaccount` itself. */
export function viaPath(path: string, trail: readonly string[], wayBack: WayBack = "holder"): string {
  const text = trailQuery(trail, wayBack, false);
  return text ? `${path}?${text}` : path;
}

/** `path` (messages, refusals, SMPP binds, sub-accounts) of the last account of `trail`. */
export function trailLink(path: string, trail: readonly string[], wayBack: WayBack = "holder"): string {
  const text = trailQuery(trail, wayBack, true);
  return text ? `${path}?${text}` : path;
}

/** The list of the sub-accounts of the last account of `trail`; the reader's own for an empty trail. */
export function treeLink(trail: readonly string[]): string {
  return trailLink("/subaccounts", trail);
}

/**
 * What a page of the last account of `trail` shows (`what`: "messages", "refused sends"), in words
 * true at any depth: "your sub-account" only for one of the reader's own, else whose it is below.
 */
export function ofSubAccount(trail: readonly string[], what: string): string {
  const name = trail.at(-1) ?? "";
  const parent = trail.at(-2);
  return parent === undefined ? `Your sub-account ${name}'s ${what}` : `${name}'s ${what} (a sub-account of ${parent})`;
}

/**
 * The way back from a page of the last account of `trail`, named for whose list it is: the list
 * that holds the account, or its own (`wayBack` own).
 */
export function BackToTree({ trail, wayBack = "holder" }: { trail: readonly string[]; wayBack?: WayBack }) {
  const list = wayBack === "own" ? trail : trail.slice(0, -1);
  return (
    <Link to={treeLink(list)}>
      {list.length === 0 ? "Your" : `${list.at(-1)}'s`}{" "}
      {/* Not broken at its hyphen on a narrow screen, "sub-" on one line and "accounts" on the next. */}
      <span style={{ whiteSpace: "nowrap" }}>sub-accounts</span>
    </Link>
  );
}

/**
 * The levels from the reader's own list down to the last account of `trail`, each a link to its list
 * of sub-accounts; the current page (`page`, e.g. "messages") last, or without one the account's own list.
 */
export function TreeTrail({ trail, page }: { trail: readonly string[]; page?: string }) {
  const here = (text: string) => <span aria-current="page">{text}</span>;
  return (
    <nav aria-label="Where in your sub-accounts" data-testid="subaccount-trail">
      <p>
        <Link to="/subaccounts">Your sub-accounts</Link>
        {trail.map((name, level) => (
          <span key={name}>
            {" › "}
            {level === trail.length - 1 && page === undefined ? (
              here(name)
            ) : (
              <Link to={treeLink(trail.slice(0, level + 1))}>{name}</Link>
            )}
          </span>
        ))}
        {page === undefined ? null : (
          <span>
            {" › "}
            {here(page)}
          </span>
        )}
      </p>
    </nav>
  );
}
