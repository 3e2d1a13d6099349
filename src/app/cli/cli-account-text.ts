// How `accounts show`, `create` and `set` print an account: its settings, registrations, and what
// it lacks to send SMS with the command that adds each.
import type { accountDetail } from "../admin/index.js";

type Detail = Awaited<ReturnType<typeof accountDetail>>;

/** The lines that say whether the account can send, and each command that would make it so. */
export function readinessText(detail: Pick<Detail, "ready" | "missing">): string {
  if (detail.ready) return "ready to send SMS";
  return [
    "not ready to send SMS; missing:",
    ...detail.missing.flatMap((gap) => [`  - ${gap.message}`, `    ${gap.command}`]),
  ].join("\n");
}

export function detailText(detail: Detail): string {
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
    readinessText(detail),
  ].join("\n");
}
