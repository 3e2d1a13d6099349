// v2 contact groups and their contacts: list, create and delete groups, list a group's contacts
// a page at a time; adding contacts is in v2-upload.ts. Answers use the `status` envelope. Each
// change is in the audit log (groups.ts, contacts.ts).

import { Type } from "typebox";
import { pageAnswer, resourceAnswer } from "../../base/http/answer-schemas.js";
import { PAGE_PARAMS, pageMeta, pageOf } from "../../base/http/query-params.js";
import type { TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { actorOf } from "../auth/index.js";
import { describeContact, listContacts } from "./contacts.js";
import {
  createGroup,
  deleteGroup,
  describeGroup,
  groupExists,
  groupNotFound,
  listGroups,
  MAX_GROUP_DESCRIPTION,
  MAX_GROUP_NAME,
  parseGroupId,
} from "./groups.js";
import { Contact, ContactGroup, GroupDeletion } from "./v2-schemas.js";
import { registerV2ContactUpload } from "./v2-upload.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "config" | "store" | "clock">;

const resource = { envelope: "status" } as const;
const tags = ["contacts"];
const GROUPS_PER_PAGE = 25;
const GROUPS_MAX_PER_PAGE = 100;
const CONTACTS_PER_PAGE = 50;
const CONTACTS_MAX_PER_PAGE = 200;

const GroupId = Type.Object({ id: Type.String({ minLength: 1, maxLength: 30 }) });
const Paging = Type.Object(PAGE_PARAMS);

export function registerV2ContactRoutes(v2: TypedRoutes, ctx: Deps): void {
  const db = ctx.store.db;

  v2.get(
    "/groups",
    {
      config: resource,
      schema: {
        operationId: "listGroups",
        response: { 200: pageAnswer(ContactGroup) },
        summary: "Contact groups of the account with their contact counts, oldest first, paginated",
        tags,
        querystring: Paging,
      },
    },
    async (request) => {
      const page = pageOf(request.query, GROUPS_PER_PAGE, GROUPS_MAX_PER_PAGE);
      const { rows, total } = await listGroups(db, request.principal!.accountId, page);
      return { status: "success", data: rows.map(describeGroup), meta: pageMeta(page, total) };
    },
  );

  v2.post(
    "/groups",
    {
      config: { ...resource, errors: [409] },
      schema: {
        operationId: "createGroup",
        summary: "Create a contact group (the name is unique in the account)",
        tags,
        body: Type.Object(
          {
            name: Type.String({ maxLength: MAX_GROUP_NAME }),
            description: Type.Optional(Type.Union([Type.String({ maxLength: MAX_GROUP_DESCRIPTION }), Type.Null()])),
          },
          { additionalProperties: false, title: "GroupRequest" },
        ),
        response: { 201: resourceAnswer(ContactGroup) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const who = { clock: ctx.clock, actor: actorOf(request) };
      const group = await createGroup(ctx.store, who, request.principal!.accountId, body);
      return reply.code(201).send({ status: "success", data: describeGroup(group) });
    },
  );

  v2.delete(
    "/groups/:id",
    {
      config: { ...resource, errors: [404] },
      schema: {
        operationId: "deleteGroup",
        summary: "Delete a contact group and its contacts",
        tags,
        params: GroupId,
        response: { 200: resourceAnswer(GroupDeletion) },
      },
    },
    async (request) => {
      const groupId = parseGroupId(request.params.id);
      const who = { clock: ctx.clock, actor: actorOf(request) };
      const deleted = await deleteGroup(ctx.store, who, request.principal!.accountId, groupId);
      if (!deleted) throw groupNotFound(groupId);
      return {
        status: "success",
        data: { id: deleted.group.id, name: deleted.group.name, deleted: true, contacts_deleted: deleted.contacts },
      };
    },
  );

  v2.get(
    "/groups/:id/contacts",
    {
      config: { ...resource, errors: [404] },
      schema: {
        operationId: "listContacts",
        response: { 200: pageAnswer(Contact) },
        summary: "Contacts of a group, ordered by number, paginated",
        tags,
        params: GroupId,
        querystring: Paging,
      },
    },
    async (request) => {
      const groupId = parseGroupId(request.params.id);
      const page = pageOf(request.query, CONTACTS_PER_PAGE, CONTACTS_MAX_PER_PAGE);
      if (!(await groupExists(db, request.principal!.accountId, groupId))) throw groupNotFound(groupId);
      const { rows, total } = await listContacts(db, groupId, page);
      return { status: "success", data: rows.map(describeContact), meta: pageMeta(page, total) };
    },
  );

  registerV2ContactUpload(v2, ctx);
}
