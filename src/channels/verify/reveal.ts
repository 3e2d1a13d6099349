// What the dispatcher hands the carrier for a message that carries a code: the stored (masked)
// text with the code put back, from its verification's sealed copy. Only the connector's copy of
// the row holds it; nothing writes it back. A verification already final has no sealed code and
// its message goes as stored, masked.
import type { MessageRow } from "../../base/store/schema.js";
import type { Store } from "../../base/store/store.js";
import { type CodeForm, type CodeKeeper, revealCode } from "./codes.js";
import { sealedCodes } from "./rows.js";
import type { CodeMeta } from "./send-code.js";

export type BodyRevealer = (rows: MessageRow[]) => Promise<MessageRow[]>;

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
    if (ids.length === 0) return rows;
    const sealed = await sealedCodes(store.db, ids);
    return rows.map((row, i) => {
      const meta = metas[i];
      const code = meta && sealed.get(meta.verification_id);
      if (!meta || !code) return row;
      const clear = keeper.unseal(meta.verification_id, code);
      return { ...row, body: revealCode(row.body, clear, meta.code_offset, meta.code_form as CodeForm) };
    });
  };
}
