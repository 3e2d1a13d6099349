// What the SMS rules need to know about an account, remembered briefly on the send path:
// its switches (routes, DLT scrubbing and matching, promo sender, international, flood limit,
// promotional hours), its whitelisted DLT entities (with their telemarketer chains) and headers,
// an index of its approved templates, and its DLT
// entities' approved links and callback numbers. Template and
// DLT changes signal every process to drop the account's entry at once; switches and
// whitelists otherwise refresh within TTL_MS.

import { type DailyWindow, parseDailyWindow } from "../../base/core/daily-window.js";
import type { EntityLinks } from "../../base/core/dlt-links.js";
import type { Store } from "../../base/store/store.js";
import {
  accountSendSwitches,
  approvedDltLinks,
  approvedDltRegistrations,
  approvedTemplates,
  DLT_CHANGED,
  type DltMatching,
  TEMPLATES_CHANGED,
} from "../../domain/accounts/index.js";
import { TemplateIndex } from "./dlt-matcher.js";
import type { Mismatch } from "./dlt-mismatch.js";

const TTL_MS = 2_000;
const TEMPLATE_TTL_MS = 60_000;
const MAX_ACCOUNTS = 10_000;

export interface AccountRules {
  routes: Set<string>;
  dltScrubbing: boolean;
  /** Whitespace compared as registered (`strict`) or collapsed (`lenient`). */
  dltMatching: DltMatching;
  promoSenderEnabled: boolean;
  internationalEnabled: boolean;
  floodLimit: number;
  entities: Set<string>;
  /** The operator's choice among several entities (see dlt-entity.ts for how it is used). */
  defaultEntity: string | null;
  headers: Set<string>;
  /** The declared telemarketer chain of each approved entity that has one. */
  chains: Map<string, string[]>;
  /** The account's own promotional hours; undefined: the operator's. */
  promoHours: DailyWindow | undefined;
  /** Sends shorten their links unless they say otherwise (tracked short links). */
  shortenUrls: boolean;
}

export interface MatchedTemplate {
  id: number;
  dltTemplateId: string | null;
  entityId: string | null;
}

export class AccountRulesCache {
  private readonly rules = new Map<number, { value: AccountRules; expires: number }>();
  private readonly templates = new Map<
    number,
    { value: Promise<TemplateIndex<MatchedTemplate>>; mode: DltMatching; expires: number }
  >();
  private readonly links = new Map<number, { value: Promise<Map<string, EntityLinks>>; expires: number }>();

  constructor(private readonly store: Store) {
    const drop = (payload: string) => {
      const accountId = Number(payload);
      this.rules.delete(accountId);
      this.templates.delete(accountId);
      this.links.delete(accountId);
    };
    store.signals.listen(TEMPLATES_CHANGED, drop);
    store.signals.listen(DLT_CHANGED, drop);
  }

  async rulesFor(accountId: number): Promise<AccountRules> {
    const now = Date.now();
    const hit = this.rules.get(accountId);
    if (hit && hit.expires > now) return hit.value;
    const [account, dlt] = await Promise.all([
      accountSendSwitches(this.store.db, accountId),
      approvedDltRegistrations(this.store.db, accountId),
    ]);
    const value: AccountRules = {
      routes: new Set(account.routes.split(",").map((r) => r.trim().toUpperCase())),
      dltScrubbing: account.dlt_scrubbing === 1,
      dltMatching: account.dlt_matching,
      promoSenderEnabled: account.promo_sender_enabled === 1,
      internationalEnabled: account.international_enabled === 1,
      floodLimit: account.flood_limit,
      entities: new Set(dlt.entities),
      defaultEntity: account.default_dlt_entity_id,
      headers: new Set(dlt.headers),
      chains: dlt.chains,
      promoHours: account.promo_hours === null ? undefined : parseDailyWindow(account.promo_hours),
      shortenUrls: account.shorten_urls === 1,
    };
    if (this.rules.size >= MAX_ACCOUNTS) this.rules.clear();
    this.rules.set(accountId, { value, expires: now + TTL_MS });
    return value;
  }

  /** The approved template `text` matches, if any (index built once per account and mode, and reused). */
  async matchTemplate(accountId: number, mode: DltMatching, text: string): Promise<MatchedTemplate | undefined> {
    return (await this.templateIndex(accountId, mode)).match(text);
  }

  /** Where the closest template (the one with `dltTemplateId` when given) stopped matching `text`. */
  async explainMismatch(
    accountId: number,
    mode: DltMatching,
    text: string,
    dltTemplateId: string | undefined,
  ): Promise<Mismatch<MatchedTemplate> | undefined> {
    const index = await this.templateIndex(accountId, mode);
    return index.explain(text, dltTemplateId ? (t) => t.dltTemplateId === dltTemplateId : undefined);
  }

  private templateIndex(accountId: number, mode: DltMatching): Promise<TemplateIndex<MatchedTemplate>> {
    const now = Date.now();
    let hit = this.templates.get(accountId);
    if (!hit || hit.expires <= now || hit.mode !== mode) {
      const value = approvedTemplates(this.store.db, accountId).then(
        (rows) =>
          new TemplateIndex(
            rows.map((row) => ({
              content: row.content,
              value: { id: row.id, dltTemplateId: row.dlt_template_id, entityId: row.entity_id },
            })),
            mode,
          ),
      );
      if (this.templates.size >= MAX_ACCOUNTS) this.templates.clear();
      const entry = { value, mode, expires: now + TEMPLATE_TTL_MS };
      hit = entry;
      this.templates.set(accountId, entry);
      value.catch(() => {
        if (this.templates.get(accountId) === entry) this.templates.delete(accountId);
      });
    }
    return hit.value;
  }

  /** The entity's approved links and callback numbers (indexed once per account, dropped on DLT_CHANGED). */
  async linksFor(accountId: number, entityId: string): Promise<EntityLinks | undefined> {
    const now = Date.now();
    let hit = this.links.get(accountId);
    if (!hit || hit.expires <= now) {
      const value = approvedDltLinks(this.store.db, accountId);
      if (this.links.size >= MAX_ACCOUNTS) this.links.clear();
      hit = { value, expires: now + TEMPLATE_TTL_MS };
      this.links.set(accountId, hit);
      value.catch(() => this.links.delete(accountId));
    }
    return (await hit.value).get(entityId);
  }
}
