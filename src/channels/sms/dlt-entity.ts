// Which DLT entity an SMS carries, decided once for every family: the one the send names
// (v2 `dlt_entity_id`, legacy `dlt_entity_id`/`entityid`), else the one its matched template
// is registered with, else the account's: its default, or its only white-listed entity. The
// legacy and XML families have no entity field in the spec, so the account's entity is what
// makes their promotional sends work as clients write them.

import { aboutInput, GatewayError } from "../../base/core/errors.js";
import { askOperatorSentence, registrationFixes } from "../../domain/accounts/index.js";

export type AccountEntity =
  | { entityId: string; source: "default" | "only" }
  | { entityId: undefined; source: "none" | "no_default" };

/** The entity of an account's sends that name none: its default when white-listed, else its only one. */
export function accountDltEntity(whitelisted: ReadonlySet<string>, defaultEntity: string | null): AccountEntity {
  if (defaultEntity !== null && whitelisted.has(defaultEntity)) return { entityId: defaultEntity, source: "default" };
  const [only, ...others] = whitelisted;
  if (only !== undefined && others.length === 0) return { entityId: only, source: "only" };
  return { entityId: undefined, source: whitelisted.size === 0 ? "none" : "no_default" };
}

export interface EntityChoice {
  /** As the send gave it (any case); white-listed entity IDs are stored upper-case. */
  named: string | undefined;
  fromTemplate: string | null | undefined;
  whitelisted: ReadonlySet<string>;
  defaultEntity: string | null;
  username: string;
}

/** The entity the send itself names, directly or through its template. */
export function namedDltEntity(choice: Pick<EntityChoice, "named" | "fromTemplate">): string | undefined {
  return choice.named?.trim().toUpperCase() || choice.fromTemplate || undefined;
}

/** The entity ID the send carries, or undefined when it has none (allowed only where DLT is not checked). */
export function chosenDltEntity(choice: EntityChoice): string | undefined {
  return namedDltEntity(choice) ?? accountDltEntity(choice.whitelisted, choice.defaultEntity).entityId;
}

/** The entity ID a DLT-checked send carries; refuses (-31) with what is missing and how to add it. */
export function requireDltEntity(choice: EntityChoice): string {
  const entityId = chosenDltEntity(choice);
  const { username, whitelisted } = choice;
  if (entityId === undefined) {
    if (whitelisted.size === 0) {
      throw new GatewayError(
        "dlt_entity_not_whitelisted",
        `No DLT entity ID: the account ${username} has no white-listed DLT entity. ${askOperatorSentence(registrationFixes.dltEntity(username))}`,
      );
    }
    const listed = [...whitelisted].sort().join(", ");
    throw new GatewayError(
      "dlt_entity_not_whitelisted",
      `No DLT entity ID: the account ${username} has ${whitelisted.size} white-listed DLT entities (${listed}) and no default; pass dlt_entity_id, or ask the operator to ${registrationFixes.defaultDltEntity(username).ask}.`,
    );
  }
  if (!whitelisted.has(entityId)) {
    const refusal = new GatewayError(
      "dlt_entity_not_whitelisted",
      `DLT entity ID ${entityId} is not white-listed for the account ${username}. ${askOperatorSentence(registrationFixes.dltEntity(username, entityId))}`,
    );
    // The send's own entity ID wins over its template's (namedDltEntity): when it gave one, that is the one refused.
    throw choice.named?.trim() ? aboutInput(refusal, "dltEntityId") : refusal;
  }
  return entityId;
}
