// The OpenAPI document of the v2 family (GET /api/v2/openapi.json), which @fastify/swagger builds
// from the route schemas. Here: the document's header and security schemes, only the /api/v2
// routes shown, and every schema with a `title` moved to components.schemas and referenced by
// that name, so that a client generator makes one named type per shape, not a copy per operation.
import { isDeepStrictEqual } from "node:util";
import swagger from "@fastify/swagger";
import type { FastifyInstance, RouteOptions } from "fastify";
import { DOCUMENTED_REQUIRED } from "./answer-schemas.js";
import { errorResponses } from "./error-answers.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** Error statuses a v2 route answers besides those of every call (see error-answers.ts). */
    errors?: readonly number[];
  }
}

type Schema = Record<string, unknown>;

const COMPONENTS = "#/components/schemas/";
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Switchboard Advanced API v2",
        version: "2.0.0",
        description: "SMS, WhatsApp, email and account resources. Authenticate with an API key.",
      },
      components: {
        securitySchemes: {
          bearer: { type: "http", scheme: "bearer" },
          apiKeyHeader: { type: "apiKey", in: "header", name: "X-API-Key" },
          apiKeyQuery: { type: "apiKey", in: "query", name: "api_key" },
        },
      },
      security: [{ bearer: [] }, { apiKeyHeader: [] }, { apiKeyQuery: [] }],
    },
    transform: ({ schema, url }) => ({
      schema: url.startsWith("/api/v2/") ? schema : { ...(schema ?? {}), hide: true },
      url,
    }),
    transformObject: (document) =>
      "openapiObject" in document ? nameComponents(document.openapiObject) : document.swaggerObject,
  });
}

/**
 * Makes a v2 route fit for the document and for serialization: it must name its operation and
 * describe its success answer; its error answers are added here, in the route's envelope.
 */
export function completeV2Route(route: RouteOptions): void {
  if (route.method === "HEAD") return;
  const schema = route.schema ?? {};
  if (schema.hide) return;
  const where = `${String(route.method)} ${route.url}`;
  if (typeof schema.operationId !== "string") {
    throw new Error(`${where}: a v2 route needs schema.operationId (its operation's name in the OpenAPI document).`);
  }
  const answers = (schema.response ?? {}) as Record<string, unknown>;
  if (!Object.keys(answers).some((status) => status.startsWith("2"))) {
    throw new Error(`${where}: a v2 route needs a schema.response for its success answer.`);
  }
  const envelope = route.config?.envelope ?? "status";
  route.schema = {
    ...schema,
    response: { ...errorResponses(envelope, route.config?.errors ?? [], schema.body !== undefined), ...answers },
  };
}

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs"]);
const SCHEMA_VALUES = new Set([
  "items",
  "additionalProperties",
  "not",
  "contains",
  "propertyNames",
  "if",
  "then",
  "else",
]);
const SCHEMA_LISTS = new Set(["anyOf", "oneOf", "allOf", "prefixItems"]);

/** The schema with its named parts (its own name too) moved into `components`. */
function hoist(schema: unknown, components: Record<string, Schema>): unknown {
  if (!isSchema(schema)) return schema;
  const copy: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (SCHEMA_MAPS.has(key) && isSchema(value)) {
      copy[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, hoist(sub, components)]));
    } else if (SCHEMA_VALUES.has(key)) {
      copy[key] = hoist(value, components);
    } else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) {
      copy[key] = value.map((sub) => hoist(sub, components));
    } else if (key !== DOCUMENTED_REQUIRED) {
      copy[key] = value;
    }
  }
  const documented = schema[DOCUMENTED_REQUIRED];
  if (Array.isArray(documented)) {
    copy.required = [...new Set([...((copy.required as string[] | undefined) ?? []), ...documented])];
  }
  const name = copy.title;
  if (typeof name !== "string") return copy;
  const known = components[name];
  if (known && !isDeepStrictEqual(known, copy)) {
    throw new Error(`Two different schemas are named "${name}"; give one of them another title.`);
  }
  components[name] = copy;
  return { $ref: `${COMPONENTS}${name}` };
}

interface Operation {
  parameters?: Array<{ schema?: unknown }>;
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

function nameComponents<T extends { paths?: unknown; components?: unknown }>(document: T): T {
  const found: Record<string, Schema> = {};
  const media = (content: Record<string, { schema?: unknown }> | undefined) => {
    for (const entry of Object.values(content ?? {})) entry.schema = hoist(entry.schema, found);
  };
  for (const item of Object.values((document.paths ?? {}) as Record<string, Record<string, Operation>>)) {
    for (const operation of Object.values(item)) {
      for (const parameter of operation.parameters ?? []) parameter.schema = hoist(parameter.schema, found);
      media(operation.requestBody?.content);
      for (const response of Object.values(operation.responses ?? {})) media(response.content);
    }
  }
  const components = (document.components ?? {}) as { schemas?: Record<string, unknown> };
  const schemas = { ...components.schemas, ...found };
  components.schemas = Object.fromEntries(
    Object.keys(schemas)
      .sort()
      .map((name) => [name, schemas[name]]),
  );
  return { ...document, components };
}
