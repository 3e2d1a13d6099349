// The v2 contact answers as schemas: they serialize the answers and show them in the OpenAPI
// document.
import { type TProperties, Type } from "typebox";
import { NullableString, Time } from "../../base/http/answer-schemas.js";

export const ContactGroup = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    description: NullableString(),
    contacts: Type.Integer({ description: "How many contacts the group has." }),
    created_at: Time,
    updated_at: Time,
  },
  { title: "ContactGroup" },
);

export const GroupDeletion = Type.Object(
  { id: Type.Integer(), name: Type.String(), deleted: Type.Literal(true), contacts_deleted: Type.Integer() },
  { title: "GroupDeletion" },
);

export const Contact = Type.Object(
  { id: Type.Integer(), number: Type.String(), name: NullableString(), created_at: Time },
  { title: "Contact" },
);

/**
 * An entry and where it was: `line` in a CSV (1 = the first line), `index` in a JSON list (from 0),
 * first. One shape per upload, each property required: the serializer writes required
 * properties before optional ones, which would move the position after the entry.
 */
function positioned<T extends TProperties>(fields: T) {
  return Type.Union([
    Type.Object({ line: Type.Integer({ description: "CSV upload: the line (1 = the first)." }), ...fields }),
    Type.Object({ index: Type.Integer({ description: "JSON upload: the index in the list (from 0)." }), ...fields }),
  ]);
}

export const ContactImport = Type.Object(
  {
    group_id: Type.Integer(),
    received: Type.Integer(),
    added: Type.Integer(),
    duplicates: Type.Integer(),
    invalid: Type.Integer(),
    duplicate_entries: Type.Array(positioned({ number: Type.String() })),
    invalid_entries: Type.Array(positioned({ value: Type.String(), reason: Type.String() })),
  },
  { title: "ContactImport" },
);
