// Whether an account can send SMS, and if not, each registration it lacks with the operator's
// command that adds it: what `accounts show` and the operator API's account view report. The
// checks follow the send path's rules (sms/policy.ts), whose refusal each gap would cause.

import type { Account } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";
import { accountDltEntity } from "../../channels/sms/index.js";
import {
  accountRoutes,
  fitsDltHeader,
  listDltEntities,
  listDltHeaders,
  listSenderIds,
  openTemplates,
  type RegistrationFix,
  registrationFixes,
  walletBalance,
} from "../../domain/accounts/index.js";

/** The operator's view of a missing registration: its command and API call (not the account's words). */
export interface MissingRegistration extends Omit<RegistrationFix, "ask"> {
  what:
    | "account_status"
    | "sender_id"
    | "dlt_header"
    | "dlt_entity"
    | "default_dlt_entity"
    | "dlt_chain"
    | "template"
    | "credits";
  message: string;
}

export interface Registrations {
  sender_ids: { id: number; sender_id: string; status: string }[];
  dlt_headers: string[];
  dlt_entities: string[];
  /** The white-listed entities without a declared telemarketer chain. */
  dlt_entities_without_chain: string[];
  /** The entity a send that names none carries (the default, or the only one); null when none would. */
  dlt_entity_of_sends: string | null;
  templates: { approved: number; pending: number };
}

export interface Readiness {
  registrations: Registrations;
  ready: boolean;
  missing: MissingRegistration[];
}

async function templateCounts(db: Db, accountId: number) {
  const rows = await openTemplates(db, accountId);
  return { approved: rows.filter((r) => r.status === "approved"), pending: rows.filter((r) => r.status === "pending") };
}

/** The operator's settings the readiness depends on. */
export interface ReadinessSettings {
  /** DLT_CHAIN_REQUIRED: an entity without a declared chain makes its sends refused. */
  dltChainRequired?: boolean;
  /** DLT_TEMPLATES_ALL_ROUTES: promotional text (routes P, PS) must match an approved template too. */
  dltTemplatesAllRoutes?: boolean;
}

/** The account's routes whose text must match an approved template, and how a refusal names them. */
function templatedRoutes(account: Account, settings: ReadinessSettings): string | undefined {
  const routes = accountRoutes(account);
  const promotional = settings.dltTemplatesAllRoutes === true && (routes.includes("P") || routes.includes("PS"));
  if (routes.includes("T") && promotional)
    return "transactional and promotional (routes T, P, PS; DLT_TEMPLATES_ALL_ROUTES on) text";
  if (routes.includes("T")) return "transactional (route T) text";
  if (promotional) return "promotional (routes P, PS; DLT_TEMPLATES_ALL_ROUTES on) text";
  return undefined;
}

export async function readinessOf(db: Db, account: Account, settings: ReadinessSettings = {}): Promise<Readiness> {
  const [senders, headerRows, entityRows, templates, smsBalance] = await Promise.all([
    listSenderIds(db, account.id),
    listDltHeaders(db, account.id),
    listDltEntities(db, account.id),
    templateCounts(db, account.id),
    walletBalance(db, account.id, "sms"),
  ]);
  const username = account.username;
  const missing: MissingRegistration[] = [];
  const gap = (what: MissingRegistration["what"], message: string, fix: RegistrationFix) =>
    missing.push({ what, message, command: fix.command, api: fix.api });

  if (account.status !== "active") {
    gap(
      "account_status",
      `The account is ${account.status}: every send is refused (-16).`,
      registrationFixes.activation(username),
    );
  }
  const approved = senders.filter((s) => s.status === "approved");
  if (approved.length === 0) {
    const pending = senders.filter((s) => s.status === "pending");
    for (const sender of pending) {
      gap(
        "sender_id",
        `Sender ID ${sender.sender} waits for approval (sends from it: -19).`,
        registrationFixes.senderApproval(sender.id),
      );
    }
    if (pending.length === 0)
      gap("sender_id", "No sender ID: every send is refused (-10).", registrationFixes.senderId(username));
  }
  const headers = new Set(headerRows.filter((h) => h.status === "approved").map((h) => h.header));
  const entities = new Set(entityRows.filter((e) => e.status === "approved").map((e) => e.entity_id));
  const withoutChain = entityRows
    .filter((e) => e.status === "approved" && !e.tm_chain)
    .map((e) => e.entity_id)
    .sort();
  const entity = accountDltEntity(entities, account.default_dlt_entity_id);
  // The DLT checks apply only while the account scrubs (sms/policy.ts checkDlt, checkContent).
  if (account.dlt_scrubbing === 1) {
    for (const sender of approved) {
      if (fitsDltHeader(sender.sender) && !headers.has(sender.sender)) {
        gap(
          "dlt_header",
          `Sender ID ${sender.sender} is not a white-listed DLT header: sends from it are refused (-32).`,
          registrationFixes.dltHeader(username, sender.sender),
        );
      }
    }
    if (entity.source === "none") {
      gap(
        "dlt_entity",
        "No DLT entity is white-listed: sends are refused (-31).",
        registrationFixes.dltEntity(username),
      );
    } else if (entity.source === "no_default") {
      gap(
        "default_dlt_entity",
        `${entities.size} DLT entities are white-listed (${[...entities].sort().join(", ")}) and none is the default: a send that names none is refused (-31).`,
        registrationFixes.defaultDltEntity(username),
      );
    }
    if (settings.dltChainRequired) {
      for (const entityId of withoutChain) {
        gap(
          "dlt_chain",
          `DLT entity ${entityId} has no declared telemarketer chain: its sends are refused (-31) while DLT_CHAIN_REQUIRED is on.`,
          registrationFixes.dltChain(username, entityId),
        );
      }
    }
    const templated = templatedRoutes(account, settings);
    if (templated !== undefined && templates.approved.length === 0) {
      const refused = `${templated} matches no approved template and is refused (-8)`;
      for (const template of templates.pending) {
        gap(
          "template",
          `Template ${template.id} waits for approval: ${refused}.`,
          registrationFixes.templateApproval(template.id),
        );
      }
      if (templates.pending.length === 0)
        gap("template", `No template: ${refused}.`, registrationFixes.template(username));
    }
  }
  if (smsBalance <= 0) {
    gap("credits", "The SMS wallet is empty: sends are refused (-12).", registrationFixes.credits(username, "sms"));
  }
  return {
    registrations: {
      sender_ids: senders.map((s) => ({ id: s.id, sender_id: s.sender, status: s.status })),
      dlt_headers: [...headers],
      dlt_entities: [...entities],
      dlt_entities_without_chain: withoutChain,
      dlt_entity_of_sends: entity.entityId ?? null,
      templates: { approved: templates.approved.length, pending: templates.pending.length },
    },
    ready: missing.length === 0,
    missing,
  };
}
