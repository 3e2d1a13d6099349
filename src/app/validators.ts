// Request validators (TypeBox's compiler), compiled once per distinct schema and part in the
// process, as the serializers are (serializers.ts): a test process builds hundreds of gateways,
// and compiling every route's schemas cost about a tenth of each start's CPU. A validator reads
// only the schema's JSON keywords (its check, and the conversion of a query string's values),
// so the JSON text and the part name it (no schema here carries a refinement, Type.Refine, whose
// function JSON would drop). One gateway per process compiles each once, as before.
import { TypeBoxValidatorCompiler } from "@fastify/type-provider-typebox";
import type { FastifySchemaCompiler } from "fastify";

type Validator = ReturnType<FastifySchemaCompiler<unknown>>;

const compiled = new Map<string, Validator>();

export const compileValidator: FastifySchemaCompiler<unknown> = (route) => {
  const key = `${route.httpPart ?? ""} ${JSON.stringify(route.schema)}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = TypeBoxValidatorCompiler(route as never) as Validator;
    compiled.set(key, validate);
  }
  return validate;
};
