// How `accounts show`, `create` and `set` print an account: its settings, registrations, and what
// it lacks to send SMS with the command that adds each.
import type { Store } from "../../base/store/store.js";
import type { accountDetail } from "../admin/index.js";
import { servedSettings } from "../served-settings.js";
import { cliDeps } from "./cli-support.js";

type Detail = Awaited<ReturnType<typeof accountDetail>>;

/** What the readiness was judged by: the DLT settings, the server's as it recorded them at its start, or this shell's. */
export interface ReadinessBasis {
  dlt_chain_required: boolean;
  dlt_templates_all_routes: boolean;
  /** `server`: as the last API process to start recorded it; `environment`: this shell's (none recorded). */
  from: "server" | "environment";
  /** When that server started; null from the environment. */
  server_started_at: string | null;
}

/**
 * The operator deps of an account view, with the DLT settings the server runs with when one has
 * recorded them (decision 0169): the CLI's own environment may not be the server's, and the
 * readiness must not contradict what the server answers. Without a record, this shell's, said so.
 */
export async function accountViewDeps(store: Store) {
  const deps = cliDeps(store);
  const served = await servedSettings(store.db);
  if (!served) {
    const basis: ReadinessBasis = {
      dlt_chain_required: deps.dltChainRequired,
      dlt_templates_all_routes: deps.dltTemplatesAllRoutes,
      from: "environment",
      server_started_at: null,
    };
    return { deps, basis };
  }
  const basis: ReadinessBasis = {
    dlt_chain_required: served.dltChainRequired,
    dlt_templates_all_routes: served.dltTemplatesAllRoutes,
    from: "server",
    server_started_at: served.at,
  };
  const dlt = {
    dltChainRequired: served.dltChainRequired,
    dltTemplatesAllRoutes: served.dltTemplatesAllRoutes,
    dltTmId: served.dltTmId,
  };
  return { deps: { ...deps, ...dlt }, basis };
}

/**
 * The lines that say whether the account can send, and each command that would make it so; with
 * `basis`, first the line that says what it was judged by.
 */
export function readinessText(detail: Pick<Detail, "ready" | "missing">, basis?: ReadinessBasis): string {
  const judged = basis === undefined ? [] : [`readiness ${basisWords(basis)}:`];
  if (detail.ready) return [...judged, "ready to send SMS"].join("\n");
  return [
    ...judged,
    "not ready to send SMS; missing:",
    ...detail.missing.flatMap((gap) => [`  - ${gap.message}`, `    ${gap.command}`]),
  ].join("\n");
}

function basisWords(basis: ReadinessBasis): string {
  const on = (value: boolean) => (value ? "on" : "off");
  const chain = `DLT_CHAIN_REQUIRED ${on(basis.dlt_chain_required)} and DLT_TEMPLATES_ALL_ROUTES ${on(basis.dlt_templates_all_routes)}`;
  return basis.from === "server"
    ? `judged with ${chain}, as the server started at ${basis.server_started_at} runs`
    : `judged with ${chain} from this shell's environment: no server has recorded its own`;
}

export function detailText(detail: Detail, basis?: ReadinessBasis): string {
  const on = (value: boolean) => (value ? "on" : "off");
  const r = detail.registrations;
  const entities = r.dlt_entities.length === 0 ? "none" : r.dlt_entities.join(", ");
  const entityOfSends =
    r.dlt_entity_of_sends === null ? "" : `; a send that names none carries ${r.dlt_entity_of_sends}`;
  const chains =
    r.dlt_entities.length === 0
      ? "no entity"
      : r.dlt_entities_without_chain.length === 0
        ? "declared for every entity"
        : `none declared for ${r.dlt_entities_without_chain.join(", ")}`;
  return [
    `${detail.username} (id ${detail.id}): ${detail.role}, ${detail.status}, ${detail.time_zone}`,
    `routes:        ${detail.routes.join(", ")} (DLT scrubbing ${on(detail.dlt_scrubbing)}, ${detail.dlt_matching} matching, promo sender ${on(detail.promo_sender_enabled)}, international ${on(detail.international_enabled)}, flood limit ${detail.flood_limit || "none"}, promotional hours ${detail.promo_hours ?? "the operator's"}, short links ${on(detail.shorten_urls)})`,
    `wallets:       ${Object.entries(detail.balances ?? {})
      .map(([wallet, credits]) => `${wallet} ${credits}`)
      .join(", ")}`,
    `sender IDs:    ${r.sender_ids.map((s) => `${s.sender_id} (${s.status})`).join(", ") || "none"}`,
    `DLT headers:   ${r.dlt_headers.join(", ") || "none"}`,
    `DLT entities:  ${entities}${entityOfSends}`,
    `DLT chains:    ${chains}`,
    `templates:     ${r.templates.approved} approved, ${r.templates.pending} pending`,
    // Decision 0168: a card changed since it was given may leave a sub-account below its parent.
    ...[...(detail.below_parent ? [detail.below_parent] : []), ...detail.subaccounts_below_parent].map(
      (below) => `warning:       ${below.message}`,
    ),
    readinessText(detail, basis),
  ].join("\n");
}
