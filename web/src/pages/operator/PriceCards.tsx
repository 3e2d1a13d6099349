// The operator's price cards (GET /admin/api/price-cards): each with its rows and the accounts it
// prices, the built-in `default` first, each opening its rows; for the roles that change prices
// (staff_money), a card imported from CSV and a card no account uses deleted (DELETE, refused
// with the API's words while accounts are on it). An account is put on a card on its own page.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { data } from "../../api.js";
import { formatNumber, formatTime } from "../../format.js";
import type { DeletedPriceCard, PriceCardSummary } from "../../operator-types.js";
import { Link } from "../../router.js";
import { canDo, useSignedIn } from "../../session.js";
import { Busy, ConfirmButton, ErrorNotice, Pager, PageTitle, Success, useClientPages } from "../../ui.js";
import { DEFAULT_CARD } from "./account-pricing.js";
import { PriceCardImport } from "./price-card-import.js";

export default function PriceCards() {
  const session = useSignedIn();
  const changes = canDo(session, "staff_money");
  const queryClient = useQueryClient();
  const cards = useQuery({
    queryKey: ["operator", "price-cards"],
    queryFn: () => data<PriceCardSummary[]>("/admin/api/price-cards"),
  });
  const remove = useMutation({
    mutationFn: (name: string) =>
      data<DeletedPriceCard>(`/admin/api/price-cards/${encodeURIComponent(name)}`, { method: "DELETE" }),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: ["operator", "price-cards"] }),
  });
  const pages = useClientPages(cards.data, 50);
  const rowsOf = (name: string) => cards.data?.find((c) => c.name === name)?.rows;
  return (
    <>
      <PageTitle>Price cards</PageTitle>
      <p>
        What accounts pay, in credits per SMS segment or voice unit, by channel, route and number prefix. An account
        without a card is priced by <code>default</code> (1 credit a unit); its card is set on its account page.
      </p>
      <ErrorNotice error={cards.error} />
      {cards.isPending ? <Busy /> : null}
      {cards.data ? (
        <div className="table-wrap">
          <table data-testid="price-cards">
            <caption>Price cards, the built-in default first</caption>
            <thead>
              <tr>
                <th scope="col">Card</th>
                <th scope="col">Rows</th>
                <th scope="col">Accounts</th>
                <th scope="col">Updated</th>
                {changes ? <th scope="col">Delete</th> : null}
              </tr>
            </thead>
            <tbody>
              {pages.rows.map((card) => (
                <tr key={card.name} data-testid={`price-card-${card.name}`}>
                  <th scope="row">
                    <Link to={`/operator/price-cards/${encodeURIComponent(card.name)}`}>{card.name}</Link>
                  </th>
                  <td>{formatNumber(card.rows)}</td>
                  <td>{formatNumber(card.accounts)}</td>
                  <td>{card.updated_at ? formatTime(card.updated_at, session.time_zone) : "built in"}</td>
                  {changes ? (
                    <td className="actions">
                      {card.name === DEFAULT_CARD ? (
                        "built in"
                      ) : (
                        <ConfirmButton
                          danger
                          label={`Delete ${card.name}`}
                          confirmLabel={`Confirm: delete ${card.name}`}
                          warning={`The card ${card.name} and its ${formatNumber(card.rows)} rows are deleted for good. A card an account is priced by is not deleted: move its accounts first.`}
                          disabled={remove.isPending}
                          onConfirm={() => remove.mutate(card.name)}
                        />
                      )}
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <Pager meta={pages.meta} onPage={pages.setPage} />
      <ErrorNotice error={remove.error} title="Not deleted" />
      {remove.isSuccess ? <Success>Deleted the price card {remove.data.name}.</Success> : null}
      {changes ? (
        <section aria-labelledby="import-title">
          <h2 id="import-title">Import a card</h2>
          <p className="hint">
            The CSV file <code>switchboard prices import</code> reads: a header <code>channel,route,prefix,price</code>{" "}
            (and <code>effective_from</code>), then one row a line, e.g. <code>sms,*,9198,0.25</code>. A card of the
            same name has its rows replaced; a bad line refuses the whole file and writes nothing.
          </p>
          <PriceCardImport replaces={rowsOf} />
        </section>
      ) : (
        <p className="hint">
          Your role reads the price cards; operator_admin and operator_finance import and delete them.
        </p>
      )}
    </>
  );
}
