// Calls shared by the inbound suites: the operator API and the v2 keyword calls.
import { expect } from "vitest";
import { call, type JsonResponse, type TestAccount, type TestGateway } from "../../helpers/gateway.js";
import { keyOf } from "../../helpers/sms.js";

export function operatorCall(
  t: TestGateway,
  operator: TestAccount,
  method: string,
  path: string,
  json?: unknown,
): Promise<JsonResponse> {
  return call(t, method, path, {
    headers: { authorization: `Bearer ${operator.apiKey}` },
    ...(json !== undefined ? { json } : {}),
  });
}

export function v2(
  t: TestGateway,
  account: TestAccount,
  method: string,
  path: string,
  json?: unknown,
): Promise<JsonResponse> {
  return call(t, method, `/api/v2${path}`, { headers: keyOf(account), ...(json !== undefined ? { json } : {}) });
}

export function expectError(response: JsonResponse, status: number, code: string): void {
  expect({ status: response.status, body: response.body }, response.text).toMatchObject({
    status,
    body: { status: "error", error: { code } },
  });
  expect(response.body.message.length).toBeGreaterThan(10);
}

/** Creates a keyword through v2 and has the operator approve it; answers its id. */
export async function approvedKeyword(
  t: TestGateway,
  operator: TestAccount,
  account: TestAccount,
  body: { key: string; response_type: string; static_message?: string },
): Promise<number> {
  const created = await v2(t, account, "POST", "/keywords", body);
  expect(created.status, created.text).toBe(201);
  const approved = await operatorCall(t, operator, "POST", `/admin/api/keywords/${created.body.data.id}/approve`);
  expect(approved.status, approved.text).toBe(200);
  return created.body.data.id;
}

export async function assignNumber(
  t: TestGateway,
  operator: TestAccount,
  account: TestAccount,
  number: string,
): Promise<void> {
  const assigned = await operatorCall(t, operator, "POST", `/admin/api/accounts/${account.username}/inbound-numbers`, {
    number,
  });
  expect(assigned.status, assigned.text).toBe(201);
}

export function inject(
  t: TestGateway,
  operator: TestAccount,
  body: { to: string; from: string; message: string; upstream_id?: string; received_at?: string },
): Promise<JsonResponse> {
  return operatorCall(t, operator, "POST", "/admin/api/inbound", body);
}
