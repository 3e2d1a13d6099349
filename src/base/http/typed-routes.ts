// Route handlers typed from their schemas: registered on a TypedRoutes, a handler's request.body,
// request.query and request.params have the types of the route's TypeBox schemas (Static<>), so
// no handler restates a schema in a cast. Answers are left untyped here: the response schema's
// serializer shapes them at run time, and the OpenAPI test holds them to the document.

import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyTypeProvider,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from "fastify";
import type { Static, TSchema } from "typebox";
import { pageAnswer, resourceAnswer } from "./answer-schemas.js";

/** The request's parts typed from their schemas; answers as Fastify types them by default. */
export interface SchemaTypedRequests extends FastifyTypeProvider {
  validator: this["schema"] extends TSchema ? Static<this["schema"]> : unknown;
  serializer: unknown;
}

export type TypedRoutes = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  SchemaTypedRequests
>;

/**
 * The response schemas of an operator route (/admin/api), whatever 2xx status it answers with:
 * `{ status: "success", data }`, or a page of `item`s with `meta`.
 */
export const operatorAnswer = (data: TSchema) => ({ "2xx": resourceAnswer(data) });
export const operatorPage = (item: TSchema) => ({ "2xx": pageAnswer(item) });
