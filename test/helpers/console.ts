// Console sessions in tests: sign in through the real route and make requests with the cookie.
import { expect } from "vitest";
import { call, type JsonResponse, type TestGateway } from "./gateway.js";

export interface SignedIn {
  /** The Cookie header value: `sb_session=<token>`. */
  cookie: string;
  csrf: string;
  /** The Set-Cookie header of the sign-in. */
  setCookie: string;
}

export async function signIn(t: TestGateway, username: string, password: string): Promise<SignedIn> {
  const response = await call(t, "POST", "/console/session", { json: { username, password } });
  expect(response.status, response.text).toBe(201);
  const setCookie = response.headers.get("set-cookie") ?? "";
  return { cookie: setCookie.split(";")[0] ?? "", csrf: response.body.data.csrf_token, setCookie };
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
