// A request without a body, on a route whose body is a JSON object, is read as the empty object:
// its answer names the field that is missing, in the family's own words ("Missing required field
// "name" in body.", "Missing sender ID."), not "The body must be object.". That is the answer to
// no body at all and to an empty (or whitespace-only) JSON body alike, which the JSON parser reads
// as no body (json-depth.ts): clients that send `Content-Type: application/json` on every request.
import type { FastifyInstance, FastifyRequest } from "fastify";

/** True when the route's body schema is a JSON object (not an array, a union or a content map). */
function takesObjectBody(request: FastifyRequest): boolean {
  const body = request.routeOptions.schema?.body as { type?: unknown } | undefined;
  return body?.type === "object";
}

/** Registers the reading of an absent body as `{}` for every route of `app` (before any family's preValidation hook). */
export function readAbsentBodyAsEmpty(app: FastifyInstance): void {
  app.addHook("preValidation", (request, _reply, done) => {
    if (request.body === undefined && takesObjectBody(request)) request.body = {};
    done();
  });
}
