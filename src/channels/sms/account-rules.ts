// What the SMS rules need to know about an account, remembered briefly on the send path:
// its switches (routes, DLT scrubbing and matching, promo sender, international, flood limit,
// promotional hours), its whitelisted DLT entities (with their telemarketer chains) and headers,
// an index of its approved templates, and its DLT
// entities' approved links and callback numbers. Template and DLT changes, and changes of the
// account's switches (accounts.ts updateAccount), signal every process to drop the account's
// entry at once (on SQLite, another process's changes move a version read at most every 2 s:
// dlt-version.ts); TTL_MS stays as the fallback of a signal missed (a lost connection).
import { BoundedMap } from "../../base/core/bounded-map.js";
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
  DltVersionWatch,
  TEMPLATES_CHANGED,
} from "../../domain/accounts/index.js";
import { TemplateIndex } from "./dlt-matcher.js";

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
  /** The DLT header it is registered for (null: any of the account's). */
  sender: string | null;
}

/** What the DLT checks of a send read: the account's template index and its entities' lists. */
export interface DltSnapshot {
  templates: TemplateIndex<MatchedTemplate>;
  /** Approved links and callback numbers by DLT entity. */
  links: Map<string, EntityLinks>;
}

/** A cached load: the promise, and its value once it has come (read without waiting). */
interface Loaded<V> {
  value: Promise<V>;
  ready?: V;
  expires: number;
}

export class AccountRulesCache {
  private readonly rules = new BoundedMap<number, { value: AccountRules; expires: number }>(MAX_ACCOUNTS);
  private readonly templates = new BoundedMap<number, Loaded<TemplateIndex<MatchedTemplate>> & { mode: DltMatching }>(
    MAX_ACCOUNTS,
  );
  private readonly links = new BoundedMap<number, Loaded<Map<string, EntityLinks>>>(MAX_ACCOUNTS);
  private readonly version: DltVersionWatch;

  constructor(private readonly store: Store) {
    this.version = new DltVersionWatch(store, () => {
      this.rules.clear();
      this.templates.clear();
      this.links.clear();
    });
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
    await this.version.fresh();
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
    this.rules.set(accountId, { value, expires: now + TTL_MS });
    return value;
  }

  /**
   * The account's DLT snapshot when both its parts are loaded and fresh, without waiting (every
   * send but the first after a change or expiry); undefined: ask `dltSnapshot`.
   */
  dltSnapshotNow(accountId: number, mode: DltMatching): DltSnapshot | undefined {
    const now = Date.now();
    if (this.version.due(now)) return undefined;
    const templates = this.templates.get(accountId);
    const links = this.links.get(accountId);
    if (!templates?.ready || templates.expires <= now || templates.mode !== mode) return undefined;
    if (!links?.ready || links.expires <= now) return undefined;
    return { templates: templates.ready, links: links.ready };
  }

  async dltSnapshot(accountId: number, mode: DltMatching): Promise<DltSnapshot> {
    await this.version.fresh();
    const [templates, links] = await Promise.all([this.templateIndex(accountId, mode), this.linksOf(accountId)]);
    return { templates, links };
  }

  /**
   * The approved template `text` matches, if any, the one `preferred` accepts first (short links
   * try their replacements with it, preferring the send's own template).
   */
  async matchTemplate(
    accountId: number,
    mode: DltMatching,
    text: string,
    preferred?: (template: MatchedTemplate) => boolean,
  ): Promise<MatchedTemplate | undefined> {
    return (await this.templateIndex(accountId, mode)).matchWithLayout(text, preferred)?.value;
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
              value: { id: row.id, dltTemplateId: row.dlt_template_id, entityId: row.entity_id, sender: row.sender },
            })),
            mode,
          ),
      );
      hit = Object.assign(
        remembered(value, () => this.templates, accountId, now),
        { mode },
      );
      this.templates.set(accountId, hit);
    }
    return hit.value;
  }

  /** The entity's approved links and callback numbers (indexed once per account, dropped on DLT_CHANGED). */
  async linksFor(accountId: number, entityId: string): Promise<EntityLinks | undefined> {
    return (await this.linksOf(accountId)).get(entityId);
  }

  private linksOf(accountId: number): Promise<Map<string, EntityLinks>> {
    const now = Date.now();
    let hit = this.links.get(accountId);
    if (!hit || hit.expires <= now) {
      hit = remembered(approvedDltLinks(this.store.db, accountId), () => this.links, accountId, now);
      this.links.set(accountId, hit);
    }
    return hit.value;
  }
}

/** A load entry that keeps its value once it comes, and leaves its map if the load fails. */
function remembered<V>(
  value: Promise<V>,
  map: () => Map<number, Loaded<V>>,
  accountId: number,
  now: number,
): Loaded<V> {
  const entry: Loaded<V> = { value, expires: now + TEMPLATE_TTL_MS };
  value.then(
    (ready) => {
      entry.ready = ready;
    },
    () => {
      if (map().get(accountId) === entry) map().delete(accountId);
    },
  );
  return entry;
}
