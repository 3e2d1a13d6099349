// Secrets of this installation (email tracking's, verification codes'), each kept under its key
// in the `settings` table: made on first use, the same for every process that reads it after.
import { randomBytes } from "node:crypto";
import type { Store } from "./store.js";

/** The 32-byte secret stored under `key`; the first caller's fresh one wins a race. */
export async function installationSecret(store: Pick<Store, "db">, key: string): Promise<Buffer> {
  const fresh = randomBytes(32).toString("base64url");
  await store.db
    .insertInto("settings")
    .values({ key, value: fresh })
    .onConflict((oc) => oc.column("key").doNothing())
    .execute();
  const row = await store.db.selectFrom("settings").select("value").where("key", "=", key).executeTakeFirstOrThrow();
  return Buffer.from(row.value, "base64url");
}
