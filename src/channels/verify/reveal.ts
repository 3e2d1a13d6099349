// What the dispatcher hands the carrier for a message that carries a code: the stored (masked)
// text with the code put back, from its verification's sealed copy. Only the connector's copy of
// the row holds it; nothing writes it back. A message whose verification is final (approved,
// denied, expired, cancelled) or gone (its start failed after the message was saved) has no code
// to carry: it is withheld, and the dispatcher fails and refunds it (`verification_closed`).
import type { MessageRow } from "../../base/store/schema.js";
import type { Store } from "../../base/store/store.js";
import type { BodyRevealer, RevealedBatch } from "../../delivery/dispatch/index.js";
import { type CodeForm, type CodeKeeper, revealCode } from "./codes.js";
import { sealedCodes } from "./rows.js";
import type { CodeMeta } from "./send-code.js";

function codeMeta(row: MessageRow): CodeMeta | undefined {
  if (!row.meta?.includes('"verification_id"')) return undefined;
  const meta = JSON.parse(row.meta) as Partial<CodeMeta>;
  if (typeof meta.verification_id !== "string" || typeof meta.code_offset !== "number") return undefined;
  return { verification_id: meta.verification_id, code_offset: meta.code_offset, code_form: meta.code_form ?? "plain" };
}

export function codeRevealer(store: Pick<Store, "db">, keeper: CodeKeeper): BodyRevealer {
  return async (rows) => {
    const metas = rows.map(codeMeta);
    const ids = [...new Set(metas.flatMap((meta) => (meta ? [meta.verification_id] : [])))];
    if (ids.length === 0) return { send: rows, withheld: [] };
    const found = await sealedCodes(store.db, ids);
    const batch: RevealedBatch = { send: [], withheld: [] };
    rows.forEach((row, i) => {
      const meta = metas[i];
      if (!meta) {
        batch.send.push(row);
        return;
      }
      const verification = found.get(meta.verification_id);
      if (!verification?.sealed) {
        const state = verification ? `is ${verification.status}` : "was never started (its start failed)";
        batch.withheld.push({
          id: row.id,
          code: "verification_closed",
          message: `The verification ${meta.verification_id} ${state}: its code was not sent, and the message was refunded.`,
        });
        return;
      }
      const clear = keeper.unseal(meta.verification_id, verification.sealed);
      batch.send.push({ ...row, body: revealCode(row.body, clear, meta.code_offset, meta.code_form as CodeForm) });
    });
    return batch;
  };
}
