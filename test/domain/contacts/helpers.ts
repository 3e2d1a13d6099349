// Calls of the contact-group tests: JSON and CSV uploads to a group, reading its contacts back.
import { expect } from "vitest";
import { call, type JsonResponse, type TestAccount, type TestGateway } from "../../helpers/gateway.js";
import { keyOf } from "../../helpers/sms.js";

export function v2(t: TestGateway, account: TestAccount, method: string, path: string, json?: unknown) {
  return call(t, method, `/api/v2${path}`, { headers: keyOf(account), ...(json === undefined ? {} : { json }) });
}

export function expectError(response: JsonResponse, status: number, code: string) {
  expect(response.status, response.text).toBe(status);
  expect(response.body).toMatchObject({ status: "error", message: expect.any(String), error: { code } });
  expect(response.body.message.length).toBeGreaterThan(10);
}

export async function createGroup(t: TestGateway, account: TestAccount, name: string): Promise<number> {
  const created = await v2(t, account, "POST", "/groups", { name });
  expect(created.status, created.text).toBe(201);
  return created.body.data.id;
}

/**
 * POSTs a CSV body. A string goes with a Content-Length; an iterable of strings goes chunked, the
 * way a browser or `curl -T` streams a large file.
 */
export async function postCsv(
  t: TestGateway,
  account: TestAccount,
  groupId: number | string,
  csv: string | Iterable<string>,
  contentType = "text/csv",
): Promise<JsonResponse> {
  const url = `${t.url}/api/v2/groups/${groupId}/contacts`;
  const headers = { ...keyOf(account), "content-type": contentType };
  const body =
    typeof csv === "string"
      ? csv
      : new ReadableStream<Uint8Array>({
          start(controller) {
            const encoder = new TextEncoder();
            for (const part of csv) controller.enqueue(encoder.encode(part));
            controller.close();
          },
        });
  const response = await fetch(url, { method: "POST", headers, body, duplex: "half" } as RequestInit);
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/** Every contact of the group as `number` or `number name`, in number order. */
export async function contactsOf(t: TestGateway, account: TestAccount, groupId: number): Promise<string[]> {
  const out: string[] = [];
  for (let page = 1; ; page += 1) {
    const response = await v2(t, account, "GET", `/groups/${groupId}/contacts?per_page=200&page=${page}`);
    expect(response.status, response.text).toBe(200);
    for (const row of response.body.data as { number: string; name: string | null }[]) {
      out.push(row.name === null ? row.number : `${row.number} ${row.name}`);
    }
    if (page >= response.body.meta.last_page) return out;
  }
}
