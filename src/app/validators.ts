// Request validators (TypeBox's compiler), compiled once per distinct schema and part in the
// process, as the serializers are (serializers.ts): a test process builds hundreds of gateways,
// and compiling every route's schemas cost about a tenth of each start's CPU. A validator reads
// only the schema's JSON keywords (its check, and the conversion of a query string's values),
// so the JSON text and the part name it (no schema here carries a refinement, Type.Refine, whose
// function JSON would drop). One gateway per process compiles each once, as before.
// `compileValidator` compiles at the route's first request, not at start (decision 0138): a
// gateway answers a few of its hundreds of routes, and compiling all of them was a tenth of its
// start. `compileValidatorNow` compiles at start: the test that every schema compiles.
import { TypeBoxValidatorCompiler } from "@fastify/type-provider-typebox";
import type { FastifySchemaCompiler } from "fastify";

type Validator = ReturnType<FastifySchemaCompiler<unknown>>;

const compiled = new Map<string, Validator>();

export const compileValidatorNow: FastifySchemaCompiler<unknown> = (route) => {
  const key = `${route.httpPart ?? ""} ${JSON.stringify(route.schema)}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = TypeBoxValidatorCompiler(route as never) as Validator;
    compiled.set(key, validate);
  }
  return validate;
};

export const compileValidator: FastifySchemaCompiler<unknown> = (route) => {
  let validate: Validator | undefined;
  return (data: unknown) => {
    validate ??= compileValidatorNow(route) as Validator;
    return validate(data);
  };
};
