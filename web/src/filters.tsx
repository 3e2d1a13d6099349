// The filter form and the cursor-paged list that the log pages share (audit, refusals; the
// account's and the operator's alike): the filters live in the page's URL, Search puts the
// draft there, and the list reads its pages by cursor with Previous and Next.
import { useQuery } from "@tanstack/react-query";
import { type FormEvent, type ReactNode, useState } from "react";
import { request, withQuery } from "./api.js";
import { navigate, useLocation } from "./router.js";
import { Busy, CursorPager, ErrorNotice, Field } from "./ui.js";

/** A filter's values by name; an empty filter is left out of the URL. */
export type Filters = Record<string, string>;

export interface FilterField {
  name: string;
  label: string;
  type?: "text" | "search" | "date";
  hint?: string;
}

/** The filters the page's own query string holds, of those named; empty ones left out. */
export function useQueryFilters(names: readonly string[]): Filters {
  const { query } = useLocation();
  return Object.fromEntries(
    names.flatMap((name) => {
      const value = query.get(name);
      return value ? [[name, value]] : [];
    }),
  );
}

/** The filter form: one input per field (ids `${idPrefix}-${name}`); Search navigates to `page` with them. */
export function FilterForm({
  page,
  filters,
  fields,
  idPrefix,
  label,
}: {
  page: string;
  filters: Filters;
  fields: readonly FilterField[];
  idPrefix: string;
  label: string;
}) {
  const [draft, setDraft] = useState(filters);
  const apply = (event: FormEvent) => {
    event.preventDefault();
    navigate(withQuery(page, draft));
  };
  return (
    <form className="filters" onSubmit={apply} aria-label={label}>
      {fields.map(({ name, label: text, type = "text", hint }) => {
        const id = `${idPrefix}-${name}`;
        return (
          <Field key={name} label={text} id={id} {...(hint ? { hint } : {})}>
            <input
              id={id}
              type={type}
              value={draft[name] ?? ""}
              {...(hint ? { "aria-describedby": `${id}-hint` } : {})}
              onChange={(event) => setDraft({ ...draft, [name]: event.target.value })}
            />
          </Field>
        );
      })}
      <button type="submit" className="primary">
        Search
      </button>
    </form>
  );
}

/**
 * A list read page by page by cursor from `path` with `query` (`limit` rows a page); `children`
 * draws the rows of the page shown. Errors, the busy sign and the pager come with it.
 */
export function CursorList<Row>({
  path,
  query,
  limit,
  children,
}: {
  path: string;
  query: Filters;
  limit: number;
  children: (rows: Row[]) => ReactNode;
}) {
  const [cursors, setCursors] = useState<string[]>([]);
  const url = withQuery(path, { ...query, limit, cursor: cursors[cursors.length - 1] });
  const list = useQuery({
    queryKey: [path, url],
    queryFn: () => request<{ data: Row[]; meta: { next_cursor: string | null } }>(url),
  });
  return (
    <>
      <ErrorNotice error={list.error} />
      {list.isPending ? <Busy /> : null}
      {list.data ? (
        <>
          {children(list.data.data)}
          <CursorPager cursors={cursors} setCursors={setCursors} next={list.data.meta.next_cursor} />
        </>
      ) : null}
    </>
  );
}
