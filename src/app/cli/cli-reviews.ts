// The CLI's decisions on what an account asked for beyond sender IDs, templates and keywords
// (decision 0144): `dlt entities|headers|urls|callbacks approve|reject --id N` and
// `voice-caller-ids reject --id N`, each `reject` with `--reason`, as the operator API decides
// them (the same actions, the same audit entries, the CLI as the actor).
import type { Command } from "commander";
import { sql } from "kysely";
import { GatewayError } from "../../base/core/errors.js";
import type { Store } from "../../base/store/store.js";
import { setCallerIdStatus } from "../../channels/voice/index.js";
import { accountUsername, requireAccount } from "../../domain/accounts/index.js";
import { setDltLinkStatusFor, setDltStatusFor } from "../admin/index.js";
import { addReviewCommands, cliDeps } from "./cli-support.js";

type Kind = "entity" | "header" | "url" | "callback" | "caller";

const TABLE: Record<Kind, string> = {
  entity: "dlt_entities",
  header: "dlt_headers",
  url: "dlt_links",
  callback: "dlt_links",
  caller: "voice_caller_ids",
};
const NOUN: Record<Kind, string> = {
  entity: "DLT entity ID",
  header: "DLT header",
  url: "DLT link",
  callback: "DLT callback number",
  caller: "caller number",
};
const LISTED_BY: Record<Kind, string> = {
  entity: "dlt list --json",
  header: "dlt list --json",
  url: "dlt urls list",
  callback: "dlt callbacks list",
  caller: "voice-caller-ids list --json",
};

/**
 * The username of the account that owns item `id`; refused as unknown when there is none, or
 * when it is not of `account` (the operator named one).
 */
async function ownerOf(store: Store, kind: Kind, id: number, account: string | undefined): Promise<string> {
  const { rows } = await sql<{
    account_id: number;
  }>`select account_id from ${sql.table(TABLE[kind])} where id = ${id}`.execute(store.db);
  const owner = rows[0] === undefined ? undefined : Number(rows[0].account_id);
  if (owner === undefined) throw new GatewayError("not_found", `No ${NOUN[kind]} with id ${id}.`);
  if (account !== undefined) {
    const named = await requireAccount(store.db, account);
    if (named.id !== owner) {
      throw new GatewayError("not_found", `No ${NOUN[kind]} with id ${id} in account ${named.username}.`);
    }
  }
  return accountUsername(store.db, owner);
}

/** The field of the answer that names the item. */
const FIELD: Record<Kind, string> = {
  entity: "entity_id",
  header: "header",
  url: "url",
  callback: "number",
  caller: "number",
};

/** `approve` and `reject` by id under `group` (a `dlt` subgroup, or `voice-caller-ids` with `reject` alone). */
export function addRequestReviewCommands(group: Command, kind: Kind): void {
  addReviewCommands<Record<string, unknown> & { account: string }>(group, {
    noun: NOUN[kind],
    listedBy: LISTED_BY[kind],
    setStatus: async (store, id, status, account, reason) => {
      const username = await ownerOf(store, kind, id, account);
      const deps = cliDeps(store);
      const row =
        kind === "entity" || kind === "header"
          ? await setDltStatusFor(deps, kind, id, status, reason)
          : kind === "caller"
            ? await setCallerIdStatus(deps, id, status, deps.actor, reason)
            : await setDltLinkStatusFor(deps, kind, id, status, reason);
      return { ...row, account: username };
    },
    describe: (row) => `${NOUN[kind]} ${String(row[FIELD[kind]])}`,
    // A caller number is approved by number (`voice-caller-ids approve --number`), which exists already.
    ...(kind === "caller" ? { actions: ["reject"] as const } : {}),
  });
}
