// A price card imported from a CSV file: the file `switchboard prices import` reads, sent as it is
// (PUT /admin/api/price-cards/{name}, Content-Type: text/csv) with its upload's progress. The card is
// created or its rows replaced whole; a bad line refuses the file, named by its line, and writes nothing.
import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { upload, withQuery } from "../../api.js";
import { BelowParentNotice } from "../../below-parent.js";
import { sentWords, useFileUpload } from "../../csv-upload.js";
import { plural } from "../../format.js";
import type { WrittenPriceCard } from "../../operator-types.js";
import { Link } from "../../router.js";
import { ErrorNotice, Field, Progress, Success } from "../../ui.js";

/** As the server checks a name (price-cards.ts checkCardName): the field says so before the upload. */
const CARD_NAME = "[A-Za-z0-9][A-Za-z0-9_.\\-]{0,63}";

/**
 * The import form: a new card's name and its file, or, with `card`, a file replacing that card's
 * rows. `replaces` says how many rows the named card has now (undefined: a new card).
 */
export function PriceCardImport({
  card,
  replaces,
}: {
  card?: string;
  replaces?: (name: string) => number | undefined;
}) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(card ?? "");
  const [file, setFile] = useState<File>();
  const [allowEmpty, setAllowEmpty] = useState(false);
  const {
    sent,
    busy,
    done,
    error,
    result: written,
    run,
  } = useFileUpload<WrittenPriceCard & { before: number | undefined }>();
  const target = (card ?? name).trim();
  const before = target ? replaces?.(target.toLowerCase()) : undefined;
  const id = card ? "card-replace" : "card-import";

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!file || !target) return;
    const path = withQuery(`/admin/api/price-cards/${encodeURIComponent(target)}`, {
      allow_empty: allowEmpty ? "true" : undefined,
    });
    const answer = await run(file, async (progress) => ({
      ...(await upload<{ data: WrittenPriceCard }>(path, file, "text/csv", progress, "PUT")).data,
      before,
    }));
    if (!answer) return;
    void queryClient.invalidateQueries({ queryKey: ["operator", "price-cards"] });
    // Every card page's query, whatever case its address spelled the name in: only the one open refetches.
    void queryClient.invalidateQueries({ queryKey: ["operator", "price-card"] });
  };

  return (
    <form onSubmit={(event) => void submit(event)} aria-label={card ? `Replace ${card}` : "Import a price card"}>
      <div className="columns">
        {card ? null : (
          <Field
            label="Card name"
            id="card-name"
            hint={
              before === undefined
                ? "A new card: letters, digits, . _ or -; names compare without case."
                : `Replaces the ${plural(before, "row")} of ${target.toLowerCase()}.`
            }
          >
            <input
              id="card-name"
              required
              pattern={CARD_NAME}
              title="Up to 64 letters, digits, . _ or -, starting with a letter or digit (no spaces)"
              aria-describedby="card-name-hint"
              value={name}
              onChange={(event) => setName(event.target.value)}
            />
          </Field>
        )}
        <Field label="CSV file" id={id} hint="Header channel,route,prefix,price[,effective_from]; one row a line.">
          <input
            id={id}
            type="file"
            required
            accept=".csv,text/csv"
            aria-describedby={`${id}-hint`}
            onChange={(event) => setFile(event.target.files?.[0])}
          />
        </Field>
      </div>
      <div className="check">
        <input
          id={`${id}-empty`}
          type="checkbox"
          checked={allowEmpty}
          onChange={(event) => setAllowEmpty(event.target.checked)}
        />
        <label htmlFor={`${id}-empty`}>
          The file may have no rows (every account on the card back to 1 credit a unit)
        </label>
      </div>
      <div className="actions">
        <button type="submit" className="primary" disabled={!file || !target || busy}>
          {card ? `Replace the rows of ${card}` : "Import the card"}
        </button>
      </div>
      {sent && busy ? (
        <Progress id={`${id}-progress`} label="Upload" value={sent.loaded} max={sent.total}>
          {done ? "Sent; the gateway is checking and writing the rows…" : sentWords(sent)}
        </Progress>
      ) : null}
      <ErrorNotice error={error} title="Not imported" />
      {written ? (
        <Success>
          <span data-testid="card-imported">
            {written.before === undefined ? "Imported" : `Replaced the ${plural(written.before, "row")} of`}{" "}
            {written.name}: {plural(written.rows, "row")} now.
          </span>{" "}
          {card ? null : (
            <Link to={`/operator/price-cards/${encodeURIComponent(written.name)}`}>The rows of {written.name}</Link>
          )}
        </Success>
      ) : null}
      {written ? (
        <BelowParentNotice
          below={written.below_parent}
          testId="card-below-parent"
          advice="The card is saved. Raise their cards, or put them on a markup (the account's page), so their parents stop paying more than they are charged."
        />
      ) : null}
    </form>
  );
}
