// Route handlers typed from their schemas: registered on a TypedRoutes, a handler's request.body,
// request.query and request.params have the types of the route's TypeBox schemas (Static<>), so
// no handler restates a schema in a cast.
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from "fastify";

export type TypedRoutes = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** The same instance, its routes typed from their schemas. */
export function typedRoutes(app: FastifyInstance): TypedRoutes {
  return app.withTypeProvider<TypeBoxTypeProvider>();
}
