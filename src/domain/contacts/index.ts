// Contact groups and their contacts: the public face for the routes and for bulk sends to a group.
//
// Its files (others import this folder through this index only):
//   groups.ts          groups created and deleted (audited), listed; another account's group reads as unknown
//   contacts.ts        a group's contacts a page at a time; its numbers for a bulk send (groupNumbers);
//                      adding them from any source whole or not at all: the source read to its end
//                      first, then one transaction (5,000 a statement) with exact added / duplicate /
//                      invalid counts and the upload's audit entry
//                      (staged by base/core/staging.ts: in memory for JSON, in a file for a CSV)
//   csv.ts             contacts read from a CSV stream one record at a time, with line numbers
//                      (csv-parse; header detection, BOM, quotes, `;` or tab)
//   v2-routes.ts       GET/POST /api/v2/groups, DELETE /api/v2/groups/{id}, GET …/contacts
//   v2-schemas.ts      the answers' schemas (ContactGroup, Contact, ContactImport)
//   v2-upload.ts       POST /api/v2/groups/{id}/contacts: a JSON list, or a CSV body streamed (never
//                      held whole in memory), up to CONTACTS_UPLOAD_MAX_MB (64 MiB by default)
export { groupNumbers } from "./contacts.js";
export { createGroup, groupExists } from "./groups.js";
export { registerV2ContactRoutes } from "./v2-routes.js";
