// What the operator's page of a message adds to the account's (GET /admin/api/messages/{id}):
// the DLT facts it was sent with, as stored at acceptance (its telemarketer chain and what the
// scrubbing did among them), and what each level of a reseller
// tree was charged for it (a sub-account's message: its own charge, then each parent's).
import { plural } from "../format.js";
import type { OperatorMessageDetail } from "../operator-types.js";

const orNone = (value: string | null) => (value ? <code>{value}</code> : "none");

type Scrubbing = NonNullable<NonNullable<OperatorMessageDetail["dlt"]>["scrubbing"]>;

/** What each outcome of the DLT scrubbing at acceptance means. */
const SCRUBBING: Record<Scrubbing, string> = {
  matched: "matched: header and entity white-listed, the text matched an approved template",
  unmatched: "unmatched: header and entity white-listed, no template matched (the route takes any text)",
  off: "off: the account did not scrub, nothing was checked",
  international: "not applied: DLT does not cover international SMS",
};

export function OperatorMessageFacts({ dlt, charges }: Pick<OperatorMessageDetail, "dlt" | "charges">) {
  return (
    <section aria-labelledby="operator-facts-title">
      <h2 id="operator-facts-title">DLT and charges</h2>
      <dl className="facts">
        {dlt ? (
          <>
            <dt>DLT header</dt>
            <dd data-testid="dlt-header" className="text-cell">
              {dlt.header ??
                "unknown: not recorded (sent from PROMOTIONAL before migration 0075 kept the header a carrier got, or refused before a carrier got it)"}
            </dd>
            <dt>DLT entity id</dt>
            <dd data-testid="dlt-entity">{orNone(dlt.entity_id)}</dd>
            <dt>DLT template id sent</dt>
            <dd data-testid="dlt-template-id">{orNone(dlt.template_id)}</dd>
            <dt>Matched template</dt>
            <dd data-testid="dlt-matched" className="text-cell">
              {dlt.matched_template
                ? `${dlt.matched_template.name ?? "a template removed since"} (#${dlt.matched_template.id})`
                : "none: the DLT check matched no template (scrubbing off, or a route that takes any text)"}
            </dd>
            <dt>Telemarketer chain</dt>
            <dd data-testid="dlt-tm-chain" className="text-cell">
              {dlt.tm_chain ? (
                <>
                  <code>{dlt.tm_chain}</code>
                  <br />
                  SHA-256 <code>{dlt.tm_chain_hash}</code>
                </>
              ) : dlt.scrubbing ? (
                "none declared for its entity"
              ) : (
                "not recorded (accepted before the gateway kept it)"
              )}
            </dd>
            <dt>DLT scrubbing</dt>
            <dd data-testid="dlt-scrubbing" className="text-cell">
              {dlt.scrubbing ? SCRUBBING[dlt.scrubbing] : "not recorded (accepted before the gateway kept it)"}
            </dd>
          </>
        ) : null}
        <dt>Charged</dt>
        <dd data-testid="message-charges">
          <ul className="plain">
            {charges.map((level, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the levels are in tree order and never reordered
              <li key={index}>
                {level.account ?? "a removed account"}: {plural(level.credits, "credit")}
                {index === 0 ? (charges.length > 1 ? " (its own)" : "") : index === 1 ? " (its parent)" : " (above)"}
              </li>
            ))}
          </ul>
        </dd>
      </dl>
    </section>
  );
}
