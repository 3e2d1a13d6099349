// `POST /api/v2/groups/{id}/contacts`: contacts as a JSON list, or as a CSV body read as a
// stream (hundreds of thousands of lines in one upload, staged in a temporary file, not memory),
// written whole or not at all.

import type { FastifyRequest } from "fastify";
import { type Static, Type } from "typebox";
import { GatewayError } from "../../base/core/errors.js";
import { fileStaging } from "../../base/core/staging.js";
import { resourceAnswer } from "../../base/http/answer-schemas.js";
import { refuseTimeoutWith } from "../../base/http/timeout-refusal.js";
import type { TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { actorOf } from "../auth/index.js";
import { addContacts, type ContactEntry, type ContactImportReport, MAX_CONTACT_NAME } from "./contacts.js";
import { csvContacts } from "./csv.js";
import { groupExists, groupNotFound, parseGroupId } from "./groups.js";
import { ContactImport } from "./v2-schemas.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "config" | "store" | "clock">;

/** Contacts per JSON request; longer lists come as CSV, which is streamed. */
export const MAX_JSON_CONTACTS = 10_000;
const CSV_TYPES = ["text/csv", "application/csv"];

const PhoneNumber = Type.Union([Type.String(), Type.Number()], {
  description: "Indian mobile: 10 digits, or with +91, 91 or 0 in front",
});
const ContactList = Type.Array(
  Type.Union([
    PhoneNumber,
    Type.Object(
      { number: PhoneNumber, name: Type.Optional(Type.Union([Type.String(), Type.Null()])) },
      { additionalProperties: false },
    ),
  ]),
  { minItems: 1, maxItems: MAX_JSON_CONTACTS },
);
const JsonContacts = Type.Union([ContactList, Type.Object({ contacts: ContactList }, { additionalProperties: false })]);
type JsonContacts = Static<typeof JsonContacts>;

function isStream(body: unknown): body is NodeJS.ReadableStream {
  return typeof (body as { pipe?: unknown } | null)?.pipe === "function";
}

function jsonEntries(body: JsonContacts): ContactEntry[] {
  const list = Array.isArray(body) ? body : body.contacts;
  return list.map((item, at) =>
    typeof item === "object" ? { at, value: String(item.number), name: item.name } : { at, value: String(item) },
  );
}

/** The upload report; `at` is named `line` for a CSV (1 = first line) and `index` for JSON (from 0). */
function describeReport(groupId: number, report: ContactImportReport, at: "line" | "index") {
  return {
    group_id: groupId,
    received: report.received,
    added: report.added,
    duplicates: report.duplicates,
    invalid: report.invalid,
    duplicate_entries: report.duplicateEntries.map((entry) => ({ [at]: entry.at, number: entry.number })),
    invalid_entries: report.invalidEntries.map((entry) => ({
      [at]: entry.at,
      value: entry.value,
      reason: entry.reason,
    })),
  };
}

/** The refusal of a CSV over the configured size (CONTACTS_UPLOAD_MAX_MB). */
function tooLarge(maxBytes: number): () => GatewayError {
  return () =>
    new GatewayError(
      "invalid_request",
      `The CSV is larger than ${maxBytes / 1024 / 1024} MiB; split it into several uploads.`,
      { http: 413 },
    );
}

/**
 * The upload route in a scope of its own: CSV bodies reach it as the raw request stream
 * (Fastify's body limit applies only to buffered bodies), and other types are refused with a
 * message that names the two accepted.
 */
export function registerV2ContactUpload(v2: TypedRoutes, ctx: Deps): void {
  v2.register(async (upload: TypedRoutes) => {
    upload.removeContentTypeParser(["application/x-www-form-urlencoded", "text/plain"]);
    upload.addContentTypeParser(CSV_TYPES, (_request, payload, done) => done(null, payload));
    upload.addContentTypeParser("*", (_request, _payload, done) =>
      done(
        new GatewayError("invalid_request", "Send contacts as application/json or text/csv.", { http: 415 }),
        undefined,
      ),
    );
    upload.post(
      "/groups/:id/contacts",
      {
        config: { envelope: "status", errors: [404] },
        schema: {
          operationId: "addContacts",
          response: { 200: resourceAnswer(ContactImport) },
          summary: "Add contacts to a group: a JSON list, or a CSV file (streamed; hundreds of thousands of lines)",
          description:
            `JSON: an array (or \`{ "contacts": [...] }\`) of up to ${MAX_JSON_CONTACTS} numbers or ` +
            `\`{ "number", "name" }\` objects. CSV (\`text/csv\`): number, then name (up to ${MAX_CONTACT_NAME} ` +
            "characters); an optional header line; lines up to 16 KiB and 1,000 fields; up to " +
            `${ctx.config.contactsUploadMaxBytes / 1024 / 1024} MiB (CONTACTS_UPLOAD_MAX_MB). Whole or not at all: the file is ` +
            "read to its end before a contact is written, then written in one transaction; a refused or cut-off upload " +
            "adds none (`error.added`: 0). Duplicates and invalid entries are reported with their line (CSV) or index (JSON).",
          tags: ["contacts"],
          params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 30 }) }),
          body: {
            content: {
              "application/json": { schema: JsonContacts },
              "text/csv": { schema: Type.Unknown({ description: "CSV: number[,name] per line" }) },
            },
          },
        },
      },
      async (request) => {
        const groupId = parseGroupId(request.params.id);
        const accountId = request.principal!.accountId;
        const body = request.body;
        if (body === undefined || body === null) {
          throw new GatewayError("invalid_request", "Send the contacts as a JSON list or a text/csv body.");
        }
        if (isStream(body)) return uploadCsv(ctx, request, body, accountId, groupId);
        if (!(await groupExists(ctx.store.db, accountId, groupId))) throw groupNotFound(groupId);
        // Not a stream: a JSON body, which the route's application/json schema checked.
        const entries = jsonEntries(body as JsonContacts);
        const who = { clock: ctx.clock, actor: actorOf(request) };
        const report = await addContacts(ctx.store, who, { accountId, groupId, action: "contacts.add" }, entries);
        return { status: "success", data: describeReport(groupId, report, "index") };
      },
    );
  });
}

async function uploadCsv(
  ctx: Deps,
  request: FastifyRequest,
  body: NodeJS.ReadableStream,
  accountId: number,
  groupId: number,
) {
  const raw = request.raw;
  const maxBytes = ctx.config.contactsUploadMaxBytes;
  // The request timeout is answered on the socket, outside this route: in its words.
  const timedOut = new GatewayError(
    "invalid_request",
    `The request did not arrive in time: the CSV did not arrive whole within ${ctx.config.http.requestTimeoutSeconds} s ` +
      "(HTTP_REQUEST_TIMEOUT_SECONDS). No contact was added.",
    { added: 0 },
  );
  const timeoutAnswered = refuseTimeoutWith(raw, timedOut);
  try {
    if (Number(request.headers["content-length"] ?? 0) > maxBytes) throw tooLarge(maxBytes)();
    if (!(await groupExists(ctx.store.db, accountId, groupId))) throw groupNotFound(groupId);
    // The body is read to its end (into a staging file) before a contact is written: the request
    // timeout, which applies until the body has arrived, never cuts an import part-way.
    const entries = csvContacts(body, { maxBytes, tooLarge: tooLarge(maxBytes) });
    const who = { clock: ctx.clock, actor: actorOf(request) };
    const upload = { accountId, groupId, action: "contacts.import" } as const;
    const report = await addContacts(ctx.store, who, upload, entries, await fileStaging());
    return { status: "success", data: describeReport(groupId, report, "line") };
  } catch (error) {
    // A client that hangs up mid-upload (or is cut off by the request timeout) is not a server
    // failure (nor worth a 500 in the logs); nothing of its file was written.
    if (raw.readableAborted) {
      throw new GatewayError(
        "invalid_request",
        "The CSV upload ended before the end of the file; no contact was added. Upload it again.",
        { added: 0 },
      );
    }
    throw error;
  } finally {
    timeoutAnswered();
  }
}
