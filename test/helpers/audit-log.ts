// The audit log read the way an auditor reads it: through the operator's and the account's audit
// routes with their filters, and the chain checked by the operator's verify route.
import { expect } from "vitest";
import { call, type TestAccount, type TestGateway } from "./gateway.js";

export type AuditEntry = Record<string, unknown>;

const bearer = (account: TestAccount) => ({ authorization: `Bearer ${account.apiKey}` });

/**
 * The entries the filters match (`action`, `actor_user`, `account`, …), oldest first, read with
 * `reader`'s key: an operator's through /admin/api/audit, an account's through /api/v2/audit.
 */
export async function auditEntries(
  t: TestGateway,
  reader: TestAccount,
  filters: Record<string, string> = {},
  { operator = true } = {},
): Promise<AuditEntry[]> {
  const query = new URLSearchParams({ limit: "500", ...filters });
  const path = operator ? "/admin/api/audit" : "/api/v2/audit";
  const answer = await call(t, "GET", `${path}?${query}`, { headers: bearer(reader) });
  expect(answer.status, answer.text).toBe(200);
  return (answer.body.data as AuditEntry[]).reverse();
}

/** The chain checked whole by the operator's verify route: it must be intact. */
export async function expectAuditChainIntact(t: TestGateway, operator: TestAccount): Promise<void> {
  const verified = await call(t, "GET", "/admin/api/audit/verify", { headers: bearer(operator) });
  expect(verified.status, verified.text).toBe(200);
  expect(verified.body.data).toMatchObject({ broken: null });
}
