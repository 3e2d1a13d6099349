// Sending domains. v2 (the account's API key): the account's domains with their DKIM record, a
// request for one (pending until an operator approves it), its removal. Operator (/admin/api): an
// account's domains, one added (approved at once if asked), and the approval or rejection. Every
// change is in the audit log, written in the change's transaction (decision 0132).

import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import { isoUtc } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import { resourceAnswer } from "../../base/http/answer-schemas.js";
import { operatorAnswer, type TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { Db } from "../../base/store/store.js";
import {
  APPROVAL_STATUSES,
  MAX_REJECTION_REASON,
  reasonOf,
  rejectionReason,
  requireAccount,
} from "../../domain/accounts/index.js";
import { type Audited, recordChange } from "../../domain/audit/index.js";
import { actorOf } from "../../domain/auth/index.js";
import { OperatorEmailDomain } from "./admin-schemas.js";
import { newDkimKey } from "./content.js";
import {
  addEmailDomain,
  describeEmailDomain,
  type EmailDomainRow,
  findDomain,
  listEmailDomains,
  normalizeDomain,
  refuseUnconfirmedShare,
  removeEmailDomain,
  setEmailDomainStatus,
} from "./domains.js";
import { EmailDomain, EmailDomainDeletion } from "./v2-schemas.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "store" | "clock">;

const resource = { envelope: "status" } as const;

const tags = ["email"];
const iso = (ms: number) => isoUtc(new Date(ms));
const ok = (data: unknown) => ({ status: "success", data });
/** The audit entry of a domain's change: the domain and its status, never its DKIM key. */
function domainEntry(
  action: string,
  row: EmailDomainRow,
  before?: { status: string },
  after?: { status: string; rejection_reason?: string | null },
) {
  return { action, target: `email domain ${row.domain}`, accountId: row.account_id, before, after };
}

/** Makes a domain change with its audit entry, in one transaction. */
function audited(ctx: Deps, who: Audited) {
  return (change: (trx: Db) => Promise<{ row: EmailDomainRow; entry: ReturnType<typeof domainEntry> }>) =>
    ctx.store.transaction(async (trx) => {
      const { row, entry } = await change(trx);
      await recordChange(trx, who, entry);
      return row;
    });
}

const DomainBody = Type.Object(
  { domain: Type.String({ minLength: 3, maxLength: 253 }) },
  { additionalProperties: false, title: "EmailDomainRequest" },
);

export function registerV2EmailDomainRoutes(v2: TypedRoutes, ctx: Deps): void {
  const db = ctx.store.db;
  const accountOf = (request: FastifyRequest) => request.principal!.accountId;

  v2.get(
    "/email/domains",
    {
      config: resource,
      schema: {
        operationId: "listEmailDomains",
        summary: "Sending domains and their DKIM records",
        tags,
        response: { 200: resourceAnswer(Type.Array(EmailDomain)) },
      },
    },
    async (request) => ok((await listEmailDomains(db, accountOf(request))).map((row) => describeEmailDomain(row, iso))),
  );

  v2.post(
    "/email/domains",
    {
      config: { ...resource, errors: [409] },
      schema: {
        operationId: "addEmailDomain",
        summary: "Ask for a sending domain (pending until an operator approves it)",
        tags,
        body: DomainBody,
        response: { 201: resourceAnswer(EmailDomain) },
      },
    },
    async (request, reply) => {
      normalizeDomain(request.body.domain);
      const key = await newDkimKey();
      const row = await audited(ctx, { clock: ctx.clock, actor: actorOf(request) })(async (trx) => {
        const row = await addEmailDomain(trx, ctx.clock, accountOf(request), request.body.domain, { key });
        return { row, entry: domainEntry("email_domain.request", row, undefined, { status: row.status }) };
      });
      return reply.code(201).send(ok(describeEmailDomain(row, iso)));
    },
  );

  v2.delete(
    "/email/domains/:domain",
    {
      config: { ...resource, errors: [404] },
      schema: {
        operationId: "removeEmailDomain",
        response: { 200: resourceAnswer(EmailDomainDeletion) },
        summary: "Remove a sending domain",
        tags,
        params: Type.Object({ domain: Type.String({ maxLength: 253 }) }),
      },
    },
    async (request) => {
      const { domain } = request.params;
      await audited(ctx, { clock: ctx.clock, actor: actorOf(request) })(async (trx) => {
        const row = await removeEmailDomain(trx, accountOf(request), domain);
        return { row, entry: domainEntry("email_domain.remove", row, { status: row.status }) };
      });
      return ok({ domain, deleted: true });
    },
  );
}

export function registerEmailDomainAdminRoutes(admin: TypedRoutes, ctx: Deps): void {
  const db = ctx.store.db;
  const Username = { username: Type.String({ maxLength: 64 }) };
  const account = async (username: string) => (await requireAccount(db, username)).id;
  const operatorIso = (ms: number) => new Date(ms).toISOString();

  admin.get(
    "/accounts/:username/email/domains",
    {
      schema: {
        summary: "An account's sending domains",
        tags: ["operator"],
        params: Type.Object(Username),
        response: operatorAnswer(Type.Array(OperatorEmailDomain)),
      },
    },
    async (request) =>
      ok(
        (await listEmailDomains(db, await account(request.params.username))).map((r) =>
          describeEmailDomain(r, operatorIso),
        ),
      ),
  );

  admin.post(
    "/accounts/:username/email/domains",
    {
      schema: {
        summary: "Add a sending domain to an account (approve: true to approve it at once)",
        tags: ["operator"],
        params: Type.Object(Username),
        body: Type.Object(
          {
            domain: Type.String({ minLength: 3, maxLength: 253 }),
            approve: Type.Optional(Type.Boolean()),
            // Approves a domain another account holds too (decision 0179); beside approve: true only.
            confirm_shared: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
        response: operatorAnswer(OperatorEmailDomain),
      },
    },
    async (request, reply) => {
      const body = request.body;
      const accountId = await account(request.params.username);
      normalizeDomain(body.domain);
      if (body.confirm_shared !== undefined && body.approve !== true) {
        throw new GatewayError(
          "invalid_request",
          "confirm_shared goes with approve: true; a domain added pending is confirmed when it is approved.",
          { field: "confirm_shared" },
        );
      }
      const key = await newDkimKey();
      const row = await audited(ctx, { clock: ctx.clock, actor: actorOf(request) })(async (trx) => {
        const row = await addEmailDomain(trx, ctx.clock, accountId, body.domain, {
          approve: body.approve === true,
          key,
        });
        // Added approved is an approval: the same check as the PUT's (the refusal rolls the add back).
        if (row.status === "approved")
          await refuseUnconfirmedShare(trx, accountId, row.domain, body.confirm_shared === true);
        return { row, entry: domainEntry("email_domain.add", row, undefined, { status: row.status }) };
      });
      return reply.code(201).send(ok(describeEmailDomain(row, operatorIso)));
    },
  );

  admin.put(
    "/accounts/:username/email/domains/:domain",
    {
      schema: {
        summary: "Approve or reject a sending domain",
        tags: ["operator"],
        params: Type.Object({ ...Username, domain: Type.String({ maxLength: 253 }) }),
        body: Type.Object(
          {
            status: Type.Union(APPROVAL_STATUSES.map((s) => Type.Literal(s))),
            // A rejection's reason, shown to the account (rejection_reason); kept only when rejected.
            reason: Type.Optional(Type.Union([Type.String({ maxLength: MAX_REJECTION_REASON }), Type.Null()])),
            // Approves a domain another account holds too (decision 0179).
            confirm_shared: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
        response: operatorAnswer(OperatorEmailDomain),
      },
    },
    async (request) => {
      const { domain } = request.params;
      const { status } = request.body;
      const reason = rejectionReason(reasonOf(request.body));
      if (reason !== null && status !== "rejected") {
        throw new GatewayError("invalid_request", 'A reason goes with "status": "rejected" only.', { field: "reason" });
      }
      const accountId = await account(request.params.username);
      const row = await audited(ctx, { clock: ctx.clock, actor: actorOf(request) })(async (trx) => {
        const before = await findDomain(trx, accountId, normalizeDomain(domain));
        // Approving (again) one it holds approved already needs nothing; one it lacks is the 404 below.
        if (status === "approved" && before && before.status !== "approved") {
          await refuseUnconfirmedShare(trx, accountId, normalizeDomain(domain), request.body.confirm_shared === true);
        }
        const row = await setEmailDomainStatus(trx, ctx.clock, accountId, domain, status, reason);
        // Back to pending (a domain to check again) is neither decision: set_status, as the other kinds name it.
        const verb = status === "approved" ? "approve" : status === "rejected" ? "reject" : "set_status";
        const action = `email_domain.${verb}`;
        const after = { status: row.status, rejection_reason: row.rejection_reason };
        return { row, entry: domainEntry(action, row, before && { status: before.status }, after) };
      });
      return ok(describeEmailDomain(row, operatorIso));
    },
  );
}
