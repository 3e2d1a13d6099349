// A reason of the error catalogue to pick, for a carrier's code or the refund policy: DLT's and
// DND's first (what Indian carriers' codes mean), then the catalogue's other codes.
import { ERROR_CATALOGUE } from "../../operator-types.js";

const ALL = Object.keys(ERROR_CATALOGUE).sort();
const CARRIER_REASONS = ALL.filter((code) => code.startsWith("dlt_") || code === "dnd_blocked");
const OTHER_REASONS = ALL.filter((code) => !CARRIER_REASONS.includes(code));

/** The catalogue's description of a reason, or nothing for a code it does not hold. */
export function reasonText(reason: string): string {
  return Object.hasOwn(ERROR_CATALOGUE, reason) ? ERROR_CATALOGUE[reason as keyof typeof ERROR_CATALOGUE].message : "";
}

export function ReasonSelect({
  id,
  value,
  onChange,
}: {
  id: string;
  value: string;
  onChange: (reason: string) => void;
}) {
  return (
    <select id={id} value={value} aria-describedby={`${id}-hint`} onChange={(event) => onChange(event.target.value)}>
      <optgroup label="DLT and DND">
        {CARRIER_REASONS.map((code) => (
          <option key={code} value={code}>
            {code}
          </option>
        ))}
      </optgroup>
      <optgroup label="Other codes of the catalogue">
        {OTHER_REASONS.map((code) => (
          <option key={code} value={code}>
            {code}
          </option>
        ))}
      </optgroup>
    </select>
  );
}
