// A JSON body's optional field sent as null is a field not sent. Many SDKs write every unset
// property as null (.NET's Newtonsoft.Json and Java's Jackson by default, generated OpenAPI
// clients), so `"schedule_at": null` is how they say "send now". Where the field's own schema
// takes null (a webhook URL cleared with null) the null keeps its meaning; a required field
// sent as null is still refused, naming it.
import type { FastifyRequest } from "fastify";

interface FieldSchema {
  type?: string | string[];
  anyOf?: FieldSchema[];
  oneOf?: FieldSchema[];
}

interface BodySchema {
  properties?: Record<string, FieldSchema>;
  required?: string[];
}

/** Whether the schema accepts null: a null type, a union with one, or no type at all (any value). */
function takesNull(schema: FieldSchema): boolean {
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return union.some(takesNull);
  if (schema.type === undefined) return true;
  return Array.isArray(schema.type) ? schema.type.includes("null") : schema.type === "null";
}

/** A preValidation hook: drops the body's top-level optional fields that are null and may not be. */
export async function dropNullOptionals(request: FastifyRequest): Promise<void> {
  const body = request.body;
  if (body === null || typeof body !== "object" || Array.isArray(body)) return;
  const schema = request.routeOptions.schema?.body as BodySchema | undefined;
  const properties = schema?.properties;
  if (!properties) return;
  const required = schema.required ?? [];
  const fields = body as Record<string, unknown>;
  for (const name of Object.keys(fields)) {
    const field = Object.hasOwn(properties, name) ? properties[name] : undefined;
    if (fields[name] === null && field && !required.includes(name) && !takesNull(field)) delete fields[name];
  }
}
