// Onboarding: one call makes an account ready to send. Its first API key, approved sender IDs
// (each white-listed as its DLT header, as India's DLT registers them), white-listed DLT
// entities with the default, approved templates and opening credits are written in one
// transaction, so a bad field anywhere leaves nothing behind.

import { GatewayError, refusalAt } from "../../base/core/errors.js";
import {
  addDltEntity,
  addSenderId,
  createAccount,
  createTemplate,
  markupBasisPoints,
  type NewAccountInput,
  normalizeDltEntityId,
  normalizeSenderId,
  parentFor,
  setDefaultDltEntity,
  whitelistSenderAsHeader,
} from "../../domain/accounts/index.js";
import { recordChange } from "../../domain/audit/index.js";
import { createApiKey } from "../../domain/auth/index.js";
import { type ChangeDeps, parseRateLimit } from "./operations.js";

export interface OnboardingTemplate {
  content: string;
  /** `template-N` (its place in the list) when left out. */
  name?: string | undefined;
  dltTemplateId?: string | null | undefined;
}

export interface OnboardingInput extends NewAccountInput {
  /** The parent (reseller) account's username: the new account is its sub-account. */
  parent?: string;
  /** A sub-account's markup on its parent's price, in per cent (up to 2 decimals); needs `parent`. */
  markupPercent?: number;
  /** Requests per minute of the first API key. */
  rateLimit?: number;
  senderIds?: readonly string[];
  dltEntityIds?: readonly string[];
  /** Must be one of dltEntityIds; with several and none named, the first is the default. */
  defaultDltEntityId?: string;
  templates?: readonly OnboardingTemplate[];
}

/** What an onboarding answers: the key is shown this once. */
export interface Onboarded {
  id: number;
  username: string;
  api_key: string;
}

/** `check(value)`, whose refusal names `field` (where the value lies in the request). */
function checkedAs<T>(field: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    throw refusalAt(error, () => field);
  }
}

/** Each entry of a list checked, its refusal naming the entry (`sender_ids[1]`), without repeats. */
function checkedList(field: string, values: readonly string[] | undefined, check: (value: string) => string) {
  return [...new Set((values ?? []).map((value, index) => checkedAs(`${field}[${index}]`, () => check(value))))];
}

/** The entity IDs, normalised and without repeats, and the default among them (if any is needed). */
function checkedEntities(input: OnboardingInput): { entities: string[]; defaultEntity: string | undefined } {
  const entities = checkedList("dlt_entity_ids", input.dltEntityIds, normalizeDltEntityId);
  const given = input.defaultDltEntityId;
  if (given === undefined) {
    return { entities, defaultEntity: entities.length > 1 ? entities[0] : undefined };
  }
  const defaultEntity = checkedAs("default_dlt_entity_id", () => normalizeDltEntityId(given));
  if (!entities.includes(defaultEntity)) {
    throw new GatewayError(
      "invalid_request",
      `The default DLT entity ${defaultEntity} must be one of the account's DLT entity IDs (${entities.join(", ") || "none given"}).`,
      { field: "default_dlt_entity_id" },
    );
  }
  return { entities, defaultEntity };
}

/**
 * What the audit log records of an onboarding: the fields given, under the operator API's names
 * (the names a sub-account made over v2 is recorded with), never the password.
 */
function recordedInput(input: OnboardingInput): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    username: input.username,
    role: input.role,
    parent: input.parent,
    markup_percent: input.markupPercent,
    price_card: input.priceCard,
    credits: input.credits,
    rate_limit: input.rateLimit,
    time_zone: input.timeZone,
    flood_limit: input.floodLimit,
    routes: input.routes,
    sender_ids: input.senderIds,
    dlt_entity_ids: input.dltEntityIds,
    default_dlt_entity_id: input.defaultDltEntityId,
    templates: input.templates?.map((template) => ({
      content: template.content,
      ...(template.name !== undefined ? { name: template.name } : {}),
      dlt_template_id: template.dltTemplateId ?? null,
    })),
  };
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

export async function createAccountWithKey(deps: ChangeDeps, input: OnboardingInput): Promise<Onboarded> {
  const rateLimit = input.rateLimit === undefined ? undefined : parseRateLimit(input.rateLimit);
  const senders = checkedList("sender_ids", input.senderIds, normalizeSenderId);
  const { entities, defaultEntity } = checkedEntities(input);
  // On DLT a template is registered under an entity: the account's.
  const templateEntity = defaultEntity ?? entities[0] ?? null;
  const { store, clock } = deps;
  if (input.parent !== undefined && input.role === "operator") {
    throw new GatewayError("invalid_request", "An operator account has no parent.", { field: "parent" });
  }
  if (input.markupPercent !== undefined && input.parent === undefined) {
    throw new GatewayError(
      "invalid_request",
      "markup_percent is a sub-account's markup on its parent's price: give parent too.",
      { field: "markup_percent" },
    );
  }
  const markupBp = input.markupPercent === undefined ? undefined : markupBasisPoints(input.markupPercent);
  const parentId =
    input.parent === undefined ? undefined : (await parentFor(store.db, input.parent, input.username)).id;
  let apiKey = "";
  const account = await createAccount(
    store,
    clock,
    { ...input, ...(parentId ? { parentId } : {}), ...(markupBp !== undefined ? { markupBp } : {}) },
    async (trx, created) => {
      const key = await createApiKey(trx, clock, created.id, {
        name: "default",
        ...(rateLimit !== undefined ? { rateLimit } : {}),
      });
      apiKey = key.key;
      for (const sender of senders) {
        await addSenderId(trx, clock, created.id, sender, { approve: true });
        // Decision 0151's white-listing, as every approval of a sender ID does (audited here as account.create).
        await whitelistSenderAsHeader(trx, clock, created.id, sender);
      }
      for (const entity of entities) await addDltEntity(trx, clock, created.id, entity);
      if (defaultEntity !== undefined) {
        await setDefaultDltEntity(trx, created.id, defaultEntity);
      }
      for (const [index, template] of (input.templates ?? []).entries()) {
        await createTemplate(trx, clock, created.id, {
          name: template.name?.trim() || `template-${index + 1}`,
          content: template.content,
          dltTemplateId: template.dltTemplateId ?? null,
          entityId: templateEntity,
          approve: true,
        }).catch((error: unknown) => {
          throw refusalAt(error, (field) => `templates[${index}]${field ? `.${field}` : ""}`);
        });
      }
      await recordChange(trx, deps, {
        action: "account.create",
        target: `account ${created.username}`,
        accountId: created.id,
        after: { ...recordedInput(input), api_key: { id: key.id, prefix: key.prefix } },
      });
    },
  );
  return { id: account.id, username: account.username, api_key: apiKey };
}
