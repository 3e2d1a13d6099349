// Legacy HTTP and XML calls for tests: plain-text answers, GET (query) or POST (form), and
// the operator API used to set accounts up the way an operator would.
import { expect } from "vitest";
import { BROADCAST_ID } from "../../src/base/core/ids.js";
import { call, type JsonResponse, type TestAccount, type TestGateway } from "./gateway.js";

export interface TextResponse {
  status: number;
  headers: Headers;
  text: string;
}

/** A parameter given as undefined is left out of the request. */
export type Params = Record<string, string | undefined>;

/** Parameters in order, a name given more than once. */
type Pairs = [string, string][];

function pairsOf(params: Params | Pairs): [string, string][] {
  if (Array.isArray(params)) return params;
  return Object.entries(params).flatMap(([name, value]): [string, string][] =>
    value === undefined ? [] : [[name, value]],
  );
}

function encode(params: Params | Pairs): string {
  return new URLSearchParams(pairsOf(params)).toString();
}

/** The parameters as multipart/form-data fields (fetch writes the boundary). */
function formData(params: Params | Pairs): FormData {
  const form = new FormData();
  for (const [name, value] of pairsOf(params)) form.append(name, value);
  return form;
}

/**
 * A legacy call: GET with the parameters in the query, or POST with them as a form (urlencoded,
 * or multipart/form-data as PHP's cURL posts an array).
 */
export async function legacy(
  t: TestGateway,
  path: string,
  params: Params | Pairs,
  method: "GET" | "POST" | "MULTIPART" = "GET",
): Promise<TextResponse> {
  const query = encode(params);
  const response =
    method === "GET"
      ? await fetch(`${t.url}${path}${query ? `?${query}` : ""}`)
      : await fetch(`${t.url}${path}`, {
          method: "POST",
          ...(method === "POST"
            ? { headers: { "content-type": "application/x-www-form-urlencoded" }, body: query }
            : { body: formData(params) }),
        });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** POST /xmlapi/send with the document in the form field `xmlstring` (undefined: no field at all). */
export function xmlSend(t: TestGateway, xml: string | undefined): Promise<TextResponse> {
  return legacy(t, "/xmlapi/send", xml === undefined ? {} : { xmlstring: xml }, "POST");
}

export function credentials(account: TestAccount): { username: string; password: string } {
  return { username: account.username, password: account.password };
}

/** A legacy send that passes every rule for a buildAccount() account with scrubbing off; `changes` override. */
export function sendParams(account: TestAccount, changes: Params = {}): Params {
  return {
    ...credentials(account),
    sender_id: "SWBRD",
    route: "T",
    phonenumber: "9876543210",
    message: "Hello from Switchboard",
    ...changes,
  };
}

/** Escapes a value for an XML attribute or element. */
export function xmlEscape(text: string): string {
  return (
    text
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;")
      .replace(/'/g, "&apos;")
      // As references: a parser turns a raw line break or tab inside an attribute into a space.
      .replace(/[\n\r\t]/g, (c) => `&#${c.charCodeAt(0)};`)
  );
}

/** A `pushsms` document; `route` is left out when not given. */
export function pushsms(
  account: { username: string; password: string },
  options: { sender?: string; route?: string; messages: { pno: string; msg: string }[] },
): string {
  const messages = options.messages
    .map((m) => `<message pno="${xmlEscape(m.pno)}" msg="${xmlEscape(m.msg)}"/>`)
    .join("");
  return (
    `<?xml version="1.0" encoding="UTF-8"?><pushsms>` +
    `<username>${xmlEscape(account.username)}</username><password>${xmlEscape(account.password)}</password>` +
    `<senderid>${xmlEscape(options.sender ?? "SWBRD")}</senderid>` +
    (options.route === undefined ? "" : `<route>${xmlEscape(options.route)}</route>`) +
    `<messages>${messages}</messages></pushsms>`
  );
}

/** The legacy answer of a successful send: a broadcast id of this account. */
export function expectBroadcastId(response: TextResponse, account: TestAccount, what = ""): string {
  expect(response.status, `${what} ${response.text}`).toBe(200);
  expect(response.text, what).toMatch(/^\d+_\d{8}_\d+$/);
  expect(BROADCAST_ID.exec(response.text)?.[1], what).toBe(String(account.id));
  return response.text;
}

/** A call to the operator API (/admin/api) with an operator key; fails the test unless it succeeds. */
export async function operatorCall(
  t: TestGateway,
  operator: TestAccount,
  method: string,
  path: string,
  json?: unknown,
): Promise<JsonResponse> {
  const response = await call(t, method, `/admin/api${path}`, {
    headers: { authorization: `Bearer ${operator.apiKey}` },
    ...(json !== undefined ? { json } : {}),
  });
  expect(response.status, `${method} ${path}: ${response.text}`).toBeLessThan(300);
  return response;
}
