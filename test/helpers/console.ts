// Console sessions in tests: sign in through the real route and make requests with the cookie;
// add an account's console users (and an operator's staff) and sign them in, through the API or a
// browser page; open a view of another account from a session.
import type { Page } from "playwright-core";
import { expect } from "vitest";
import { CHEAP_PASSWORD_PREFIX } from "./cheap-hashes.js";
import { call, type JsonResponse, type TestGateway } from "./gateway.js";

export interface SignedIn {
  /** The Cookie header value: `sb_session=<token>`. */
  cookie: string;
  csrf: string;
  /** The Set-Cookie header of the sign-in. */
  setCookie: string;
}

/** The session a sign-in's answer opened (or a second step's that completed one): its cookie and CSRF token. */
export function sessionOf(response: JsonResponse): SignedIn {
  const setCookie = response.headers.get("set-cookie") ?? "";
  return { cookie: setCookie.split(";")[0] ?? "", csrf: response.body.data.csrf_token, setCookie };
}

async function openSession(t: TestGateway, json: Record<string, string>): Promise<SignedIn> {
  const response = await call(t, "POST", "/console/session", { json });
  expect(response.status, response.text).toBe(201);
  return sessionOf(response);
}

export function signIn(t: TestGateway, username: string, password: string): Promise<SignedIn> {
  return openSession(t, { username, password });
}

/**
 * The password addConsoleUser and addStaffUser give a user unless told another:
 * `pw-<login>-password-1`, which starts with CHEAP_PASSWORD_PREFIX (cheap to hash in tests).
 */
export const userPassword = (login: string): string => `${CHEAP_PASSWORD_PREFIX}${login}-password-1`;

/** Signs in as one of the account's users, by its login (userPassword(login) unless named). */
export function signInUser(
  t: TestGateway,
  username: string,
  login: string,
  password = userPassword(login),
): Promise<SignedIn> {
  return openSession(t, { username, login, password });
}

interface AddUserOptions {
  /** The user's password: userPassword(login) unless named. */
  password?: string;
  /** Sign them in after adding them (the default); false only adds them. */
  signIn?: boolean;
}

interface AddUser {
  (
    t: TestGateway,
    account: { username: string; apiKey: string },
    login: string,
    userRole: string,
    options?: AddUserOptions & { signIn?: true },
  ): Promise<SignedIn>;
  (
    t: TestGateway,
    account: { username: string; apiKey: string },
    login: string,
    userRole: string,
    options: AddUserOptions & { signIn: false },
  ): Promise<undefined>;
}

function userAdder(path: string): AddUser {
  return (async (
    t: TestGateway,
    account: { username: string; apiKey: string },
    login: string,
    userRole: string,
    { password = userPassword(login), signIn: andSignIn = true }: AddUserOptions = {},
  ): Promise<SignedIn | undefined> => {
    const added = await call(t, "POST", path, {
      headers: { authorization: `Bearer ${account.apiKey}` },
      json: { login, user_role: userRole, password },
    });
    expect(added.status, added.text).toBe(201);
    return andSignIn ? signInUser(t, account.username, login, password) : undefined;
  }) as AddUser;
}

/**
 * Adds a console user with the role `userRole` to the account, with the account's API key
 * (POST /api/v2/users), and signs them in through the real route: their session. With
 * `signIn: false` it only adds them.
 */
export const addConsoleUser: AddUser = userAdder("/api/v2/users");

/**
 * Adds a staff user with the role `userRole` (operator_support, operator_finance, …) to the
 * operator, with the operator's API key (POST /admin/api/staff), and signs them in with the
 * operator's username: their session. With `signIn: false` it only adds them.
 */
export const addStaffUser: AddUser = userAdder("/admin/api/staff");

/** Signs in through the console's form at the overview as one of the account's users, by its login. */
export async function signInAsConsoleUser(
  page: Page,
  username: string,
  login: string,
  password = userPassword(login),
): Promise<void> {
  await page.goto("/");
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Your login").fill(login);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}

/** A request with the session's cookie, and its CSRF token unless `csrf` is false. */
export function callAs(
  t: TestGateway,
  session: SignedIn,
  method: string,
  path: string,
  init: { json?: unknown; body?: string; headers?: Record<string, string>; csrf?: boolean | string } = {},
): Promise<JsonResponse> {
  const headers: Record<string, string> = { cookie: session.cookie, ...(init.headers ?? {}) };
  if (init.csrf !== false) headers["x-csrf-token"] = typeof init.csrf === "string" ? init.csrf : session.csrf;
  return call(t, method, path, {
    headers,
    ...(init.json !== undefined ? { json: init.json } : {}),
    ...(init.body !== undefined ? { body: init.body } : {}),
  });
}

/** A view of an account opened from a console session: the view's session, and the answer that opened it. */
export interface OpenedView extends SignedIn {
  /** The answer of POST /console/session/view (201): the view's session, for tests that read it. */
  opened: JsonResponse;
}

/**
 * Opens a read-only view of the account `username` from the session `viewer` (POST
 * /console/session/view, its 201 checked) and carries both cookies as a browser does: the
 * viewer's and the view's sb_view, with the view's CSRF token. Tests of a refused view, or of
 * the view's cookie itself, make the request themselves.
 */
export async function openView(t: TestGateway, viewer: SignedIn, username: string): Promise<OpenedView> {
  const opened = await callAs(t, viewer, "POST", "/console/session/view", { json: { username } });
  expect(opened.status, opened.text).toBe(201);
  const view = sessionOf(opened);
  return { ...view, cookie: `${viewer.cookie}; ${view.cookie}`, opened };
}
