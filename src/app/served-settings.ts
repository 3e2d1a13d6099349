// The settings a server runs with that the CLI's account views depend on: DLT_CHAIN_REQUIRED
// decides whether an entity without a declared chain makes an account not ready,
// DLT_TEMPLATES_ALL_ROUTES whether a promotional account without a template is, DLT_TM_ID ends
// every chain shown. The CLI runs with its own environment, often not the server's, so each API
// process records its own in `settings` when it starts (assemble.ts) and the CLI's `accounts`
// commands judge by what was recorded, saying so; with nothing recorded, by their own environment,
// saying that (decision 0169). PROMOTIONAL_HEADER is not recorded: a sent message keeps the header
// its carrier got (decision 0187), which its views read; a row an older server wrote may still
// hold it, and it is ignored.
import type { Db } from "../base/store/store.js";

const KEY = "served_dlt_settings";

/** What the last API process to start recorded. */
export interface ServedSettings {
  dltChainRequired: boolean;
  /** False when a server recorded before the setting existed. */
  dltTemplatesAllRoutes: boolean;
  dltTmId: string | undefined;
  /** When it started (ISO 8601). */
  at: string;
}

/** Records the settings this API process runs with (the last to start wins). */
export async function recordServedSettings(
  db: Db,
  dlt: {
    chainRequired: boolean;
    templatesAllRoutes: boolean;
    tmId?: string | undefined;
  },
  now: Date,
): Promise<void> {
  const value = JSON.stringify({
    dltChainRequired: dlt.chainRequired,
    dltTemplatesAllRoutes: dlt.templatesAllRoutes,
    dltTmId: dlt.tmId,
    at: now.toISOString(),
  });
  await db
    .insertInto("settings")
    .values({ key: KEY, value })
    .onConflict((oc) => oc.column("key").doUpdateSet({ value }))
    .execute();
}

/** The settings the last API process to start recorded; undefined when none has. */
export async function servedSettings(db: Db): Promise<ServedSettings | undefined> {
  const row = await db.selectFrom("settings").select("value").where("key", "=", KEY).executeTakeFirst();
  if (!row) return undefined;
  try {
    const parsed = JSON.parse(row.value) as Partial<ServedSettings>;
    if (typeof parsed.dltChainRequired !== "boolean" || typeof parsed.at !== "string") return undefined;
    return {
      dltChainRequired: parsed.dltChainRequired,
      dltTemplatesAllRoutes: parsed.dltTemplatesAllRoutes === true,
      dltTmId: parsed.dltTmId ?? undefined,
      at: parsed.at,
    };
  } catch {
    return undefined;
  }
}
