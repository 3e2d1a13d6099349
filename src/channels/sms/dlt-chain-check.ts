// The SMS rule on the DLT telemarketer chain (issue 40, item 2; docs/api.md rule 14c): with the
// operator's DLT_CHAIN_REQUIRED, an entity without a declared chain is refused, as operators drop
// its SMS; a chain the client sent (the SMPP server's TLV) must be the declared one, with the
// operator's current TM ID (DLT_TM_ID) last as carriers get it, or without that ID only. And what an
// accepted SMS's row keeps of its DLT check (docs/decisions/0145): the chain and the scrubbing.
import { GatewayError } from "../../base/core/errors.js";
import type { TrafficClass } from "../../base/core/traffic-class.js";
import {
  askOperatorSentence,
  carriedTmChain,
  registrationFixes,
  tmChainMatches,
  tmChainValue,
} from "../../domain/accounts/index.js";
import type { DltScrub } from "../../domain/messages/index.js";

/**
 * The telemarketer chain declared for the send's entity as carriers are handed it, `PE,TM1,…,TMn`
 * with the operator's current TM ID last (their SHA-256 form is of this text); null without one.
 */
export function carriedChainOf(
  chains: ReadonlyMap<string, readonly string[]>,
  entityId: string | undefined,
  tmId: string | undefined,
): string | null {
  const stored = entityId === undefined ? undefined : chains.get(entityId);
  if (!stored || stored.length === 0) return null;
  return tmChainValue(entityId!, carriedTmChain(stored, tmId), "ids");
}

/** What DLT scrubbing did to an accepted SMS (a refused one has no row): see DltScrub. */
export function scrubOutcome(scrubbing: boolean, route: TrafficClass, matched: boolean): DltScrub {
  if (!scrubbing) return "off";
  if (route === "international") return "international";
  return matched ? "matched" : "unmatched";
}

export function checkTmChain(
  stored: readonly string[] | undefined,
  sent: string | undefined,
  send: { entityId: string; username: string; required: boolean; tmId?: string | undefined },
): void {
  const { entityId, username } = send;
  const declared = stored && carriedTmChain(stored, send.tmId);
  if (declared === undefined) {
    if (!send.required) return;
    throw new GatewayError(
      "dlt_chain_missing",
      `DLT entity ${entityId} of the account ${username} has no declared telemarketer chain: operators drop SMS without one. ${askOperatorSentence(registrationFixes.dltChain(username, entityId))}`,
      { entity_id: entityId },
    );
  }
  if (sent === undefined || tmChainMatches(sent, entityId, declared, send.tmId)) return;
  const shown = sent.trim() === "" ? "empty" : sent.slice(0, 100);
  throw new GatewayError(
    "dlt_chain_mismatch",
    `The telemarketer chain sent (${shown}) is not the one declared for DLT entity ${entityId} of the account ${username}: ${[entityId, ...declared].join(",")}, or its SHA-256.`,
    { entity_id: entityId },
  );
}
