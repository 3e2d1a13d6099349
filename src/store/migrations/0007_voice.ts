// Voice (issue 9): tables of the voice family.
import type { Kysely } from "kysely";
import type { Engine } from "../engine.js";

export function voice(_engine: Engine) {
  return {
    async up(_db: Kysely<unknown>): Promise<void> {},
  };
}
