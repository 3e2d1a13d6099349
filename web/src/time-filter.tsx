// A message search's bound (from or to) as a date and an optional time of day, in the zone the
// console writes times in (the signed-in account's, as the API reads a time without a zone): one
// value for the API, "2026-11-30" (the whole day) or "2026-11-30T10:14".
import { zoneLabel } from "./format.js";
import { Field } from "./ui.js";

/** A bound's value split into its date and its time of day ("" when none). */
export function splitBound(value: string): { day: string; time: string } {
  const [day = "", time = ""] = value.split("T");
  return { day, time: time.slice(0, 5) };
}

/** The bound's value: the date alone, or the date and the time; nothing without a date. */
export function joinBound(day: string, time: string): string {
  if (!day) return "";
  return time ? `${day}T${time}` : day;
}

const WORDS = {
  from: { day: "From (date)", time: "From (time)", hint: "Optional; from this minute on" },
  to: { day: "To (date)", time: "To (time)", hint: "Optional; before this minute (without: the whole day)" },
};

/** The date and time inputs of one bound (ids `${id}` and `${id}-time`); `onChange` gets the joined value. */
export function BoundFields({
  bound,
  id,
  value,
  timeZone,
  onChange,
}: {
  bound: "from" | "to";
  id: string;
  value: string;
  timeZone: string;
  onChange: (value: string) => void;
}) {
  const { day, time } = splitBound(value);
  const words = WORDS[bound];
  return (
    <>
      <Field label={words.day} id={id}>
        <input id={id} type="date" value={day} onChange={(event) => onChange(joinBound(event.target.value, time))} />
      </Field>
      <Field label={`${words.time}, ${zoneLabel(timeZone)}`} id={`${id}-time`} hint={words.hint}>
        <input
          id={`${id}-time`}
          type="time"
          value={time}
          disabled={!day}
          aria-describedby={`${id}-time-hint`}
          onChange={(event) => onChange(joinBound(day, event.target.value))}
        />
      </Field>
    </>
  );
}
