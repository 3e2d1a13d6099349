// An account's templates as sends and the listing see them: the stored copy of the business
// account's list, synced again when it is older than WHATSAPP_TEMPLATE_SYNC_SECONDS, when
// Meta reports a template we have not seen, or when a send names one we do not know.
import type { Logger } from "pino";
import type { Clock } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import type { Store } from "../../base/store/store.js";
import { GraphError } from "./graph.js";
import type { WhatsAppSender, WhatsAppSettings } from "./settings.js";
import {
  listedTemplates,
  notApprovedReason,
  ONCE_APPROVED,
  storeSyncedTemplates,
  templatesNamed,
  type WhatsAppTemplateRow,
} from "./templates.js";
import type { Upstreams } from "./upstream.js";

/** A send naming an unknown template syncs again at most this often per account. */
const MISS_RESYNC_MS = 60_000;

export class TemplateCatalog {
  private readonly syncing = new Map<number, Promise<number>>();

  constructor(
    private readonly deps: {
      store: Store;
      clock: Clock;
      logger: Logger;
      upstreams: Upstreams;
      syncSeconds: number;
    },
  ) {}

  /**
   * The account's listing, approved templates only (the spec's list; the operator's listing also
   * shows paused and disabled ones): synced first when stale; a failed sync serves the stored list if there is one.
   */
  async list(settings: WhatsAppSettings, sender: WhatsAppSender): Promise<WhatsAppTemplateRow[]> {
    const age = this.ageOf(settings);
    if (age === undefined || age >= this.deps.syncSeconds * 1000) {
      try {
        await this.sync(settings, sender);
      } catch (error) {
        if (age === undefined) throw error;
        this.deps.logger.warn(
          { err: error, accountId: settings.accountId },
          "template sync failed; listing stored copy",
        );
      }
    }
    return listedTemplates(this.deps.store.db, settings.accountId, ["APPROVED"]);
  }

  /** The template a send names: 404 when the business account has no approved one by that name (and language). */
  async find(
    settings: WhatsAppSettings,
    sender: WhatsAppSender,
    name: string,
    language: string | undefined,
  ): Promise<WhatsAppTemplateRow> {
    if (name === "") throw new GatewayError("invalid_request", 'Field "template" is empty.', { field: "template" });
    // No template name holds U+0000, which PostgreSQL refuses in a query: unknown, as on SQLite.
    if (name.includes("\u0000")) throw unknownTemplate(name, undefined, []);
    const db = this.deps.store.db;
    let rows: WhatsAppTemplateRow[] = [];
    const age = this.ageOf(settings);
    if (age !== undefined) rows = await templatesNamed(db, settings.accountId, name);
    const hit = pick(rows, language);
    // Never synced, or a name we do not know: perhaps approved since the last sync.
    if (age === undefined || (!hit && age >= MISS_RESYNC_MS)) {
      try {
        await this.sync(settings, sender);
      } catch (error) {
        if (age === undefined) throw error;
      }
      rows = await templatesNamed(db, settings.accountId, name);
    }
    const template = pick(rows, language);
    if (!template) throw unknownTemplate(name, language, rows);
    // Paused and disabled too: the spec's 404 covers any unapproved name; 422 template_not_sendable
    // is left for an approved template this sender cannot send.
    const notApproved = notApprovedReason(template.status, template.reason);
    if (notApproved !== undefined) {
      throw new GatewayError(
        "template_not_found",
        `Template not found or not approved: "${name}" (${template.language}) is ${template.status.toLowerCase()}. ${notApproved}`,
        { field: "template" },
      );
    }
    return template;
  }

  /** The next listing or send syncs again (Meta said a template changed, or a send found it gone). */
  markStale(accountId: number): void {
    this.deps.store.db
      .updateTable("whatsapp_accounts")
      .set({ templates_synced_at: null })
      .where("account_id", "=", accountId)
      .execute()
      .catch((error: unknown) => this.deps.logger.warn({ err: error }, "marking templates stale failed"));
  }

  /** Fetches the business account's templates and stores them; concurrent calls for one account share one fetch. */
  sync(settings: WhatsAppSettings, sender: WhatsAppSender): Promise<number> {
    const running = this.syncing.get(settings.accountId);
    if (running) return running;
    const task = (async () => {
      let templates: Awaited<ReturnType<Upstreams["simulator"]["listTemplates"]>>;
      try {
        templates = await this.deps.upstreams[settings.connector].listTemplates(sender);
      } catch (error) {
        throw syncError(error);
      }
      return storeSyncedTemplates(this.deps.store, this.deps.clock, settings.accountId, templates);
    })().finally(() => this.syncing.delete(settings.accountId));
    this.syncing.set(settings.accountId, task);
    return task;
  }

  private ageOf(settings: WhatsAppSettings): number | undefined {
    if (settings.templatesSyncedAt === null) return undefined;
    return Math.max(0, this.deps.clock.now().getTime() - settings.templatesSyncedAt);
  }
}

/**
 * One translation: the language asked for; else the only one, else English first among those
 * ever approved. A paused English one is not swapped for another language behind the client's back.
 */
function pick(rows: WhatsAppTemplateRow[], language: string | undefined): WhatsAppTemplateRow | undefined {
  if (language !== undefined) return rows.find((r) => r.language.toLowerCase() === language.toLowerCase());
  if (rows.length <= 1) return rows[0];
  const listed = rows.filter((r) => (ONCE_APPROVED as readonly string[]).includes(r.status));
  const pool = listed.length > 0 ? listed : rows;
  return pool.find((r) => r.language === "en_US") ?? pool.find((r) => r.language === "en") ?? pool[0];
}

function unknownTemplate(name: string, language: string | undefined, rows: WhatsAppTemplateRow[]): GatewayError {
  const translation = language ? ` in language ${language}` : "";
  const others = language && rows.length > 0 ? ` (it exists in ${rows.map((r) => r.language).join(", ")})` : "";
  return new GatewayError(
    "template_not_found",
    `Template not found or not approved: the business account has no template "${name}"${translation}${others}.`,
    { field: "template" },
  );
}

function syncError(error: unknown): GatewayError {
  const detail = error instanceof GraphError ? error.message : "unexpected error";
  return new GatewayError(
    "upstream_error",
    `Upstream provider error: the business account's templates could not be read (${detail}); retry.`,
  );
}
