// The operator API's answers about the SMS rule set (sms-rule-routes.ts) as schemas: templates,
// DLT entity IDs and headers, link white-lists and telemarketer chains, the DND registry. A template or a registration has the shape the
// account sees on v2; what the operator adds names the account. Typebox and schema files only.
import { Type } from "typebox";
import { NullableString, OneOf } from "../../base/http/answer-schemas.js";
import { DltEntity, DltHeader, DltLink, Template } from "../../domain/accounts/v2-schemas.js";

export const OperatorTemplate = Template;
export const AddedTemplate = Type.Object({ ...Template.properties, account: Type.String() });

export const OperatorDltEntity = DltEntity;
export const OperatorDltHeader = DltHeader;
export const AddedDltEntity = Type.Object({ ...DltEntity.properties, account: Type.String() });
export const AddedDltHeader = Type.Object({ ...DltHeader.properties, account: Type.String() });
export const RemovedDltEntity = Type.Object({
  account: Type.String(),
  entity_id: Type.String(),
  removed: Type.Boolean(),
});
export const RemovedDltHeader = Type.Object({ account: Type.String(), header: Type.String(), removed: Type.Boolean() });

export const OperatorDltLink = DltLink;
export const AddedDltLink = Type.Object({ ...DltLink.properties, account: Type.String() });
export const RemovedDltLink = Type.Object({
  account: Type.String(),
  entity_id: Type.String(),
  url: NullableString(),
  number: NullableString(),
  removed: Type.Boolean(),
});

/** An entity's telemarketer chain (dlt-chain-routes.ts); `status` is the entity's. */
export const DltChain = Type.Object({
  entity_id: Type.String(),
  status: OneOf(["pending", "approved", "rejected"]),
  tm_chain: Type.Array(Type.String(), { description: "The telemarketer IDs in order, the operator's own last" }),
});
export const DeclaredDltChain = Type.Object({
  account: Type.String(),
  entity_id: Type.String(),
  tm_chain: DltChain.properties.tm_chain,
});
export const ClearedDltChain = Type.Object({
  account: Type.String(),
  entity_id: Type.String(),
  cleared: Type.Boolean(),
});

export const DndImport = Type.Object({
  added: Type.Integer(),
  /** Numbers already in the registry, or repeated in the file. */
  duplicates: Type.Integer(),
  /** Every invalid line; `invalid` lists the first of them by line number. */
  invalid_count: Type.Integer(),
  invalid: Type.Array(Type.Object({ line: Type.Integer(), value: Type.String() })),
});
export const DndAdded = Type.Object({ added: Type.Integer(), duplicates: Type.Integer() });
export const DndRemoved = Type.Object({ removed: Type.Integer() });
export const DndCount = Type.Object({ count: Type.Integer() });
export const DndStatus = Type.Object({ number: Type.String(), dnd: Type.Boolean() });
