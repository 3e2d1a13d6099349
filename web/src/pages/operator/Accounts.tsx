// The operator's accounts: search by username and status, a page at a time, and onboarding a
// new account with the fields of POST /admin/api/accounts (the key is shown once).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { paged, request } from "../../api.js";
import { formatNumber, formatTime } from "../../format.js";
import { type OnboardedAccount, type OperatorAccount, ROUTE_CODES } from "../../operator-types.js";
import { Link } from "../../router.js";
import { canDo, useSignedIn } from "../../session.js";
import { Busy, ErrorNotice, Field, Pager, PageTitle, StatusBadge, Success } from "../../ui.js";

/** Comma- or line-separated values of a text field, trimmed, blanks dropped. */
export function listOf(text: string): string[] {
  return text
    .split(/[,\n]/)
    .map((item) => item.trim())
    .filter(Boolean);
}

export interface OnboardingDraft {
  username: string;
  password: string;
  role: "customer" | "operator";
  sms: string;
  whatsapp: string;
  email: string;
  voice: string;
  rateLimit: string;
  timeZone: string;
  floodLimit: string;
  routes: string[];
  senderIds: string;
  entities: string;
  templates: string;
}

export const EMPTY_ONBOARDING: OnboardingDraft = {
  username: "",
  password: "",
  role: "customer",
  sms: "",
  whatsapp: "",
  email: "",
  voice: "",
  rateLimit: "",
  timeZone: "Asia/Kolkata",
  floodLimit: "",
  routes: ["T", "P"],
  senderIds: "",
  entities: "",
  templates: "",
};

/** The body of POST /admin/api/accounts from the form: only what was filled in, numbers as numbers. */
export function onboardingBody(draft: OnboardingDraft): Record<string, unknown> {
  const body: Record<string, unknown> = { username: draft.username.trim(), password: draft.password };
  if (draft.role !== "customer") body.role = draft.role;
  const credits: Record<string, number> = {};
  for (const wallet of ["sms", "whatsapp", "email", "voice"] as const) {
    if (draft[wallet].trim() !== "") credits[wallet] = Number(draft[wallet]);
  }
  if (Object.keys(credits).length > 0) body.credits = credits;
  if (draft.rateLimit.trim() !== "") body.rate_limit = Number(draft.rateLimit);
  if (draft.timeZone.trim() !== "") body.time_zone = draft.timeZone.trim();
  if (draft.floodLimit.trim() !== "") body.flood_limit = Number(draft.floodLimit);
  body.routes = draft.routes;
  const senders = listOf(draft.senderIds);
  if (senders.length > 0) body.sender_ids = senders;
  const entities = listOf(draft.entities);
  if (entities.length > 0) body.dlt_entity_ids = entities;
  const templates = draft.templates
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
  if (templates.length > 0) body.templates = templates.map((content) => ({ content }));
  return body;
}

export function OnboardingForm({ onCreated }: { onCreated?: (created: OnboardedAccount) => void }) {
  const [draft, setDraft] = useState<OnboardingDraft>(EMPTY_ONBOARDING);
  const set = (change: Partial<OnboardingDraft>) => setDraft((current) => ({ ...current, ...change }));
  const create = useMutation({
    mutationFn: () => request<{ data: OnboardedAccount }>("/admin/api/accounts", { json: onboardingBody(draft) }),
    onSuccess: (answer) => {
      setDraft(EMPTY_ONBOARDING);
      onCreated?.(answer.data);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const input = (label: string, key: keyof OnboardingDraft, extra: Record<string, unknown> = {}, hint?: string) => (
    <Field label={label} id={`new-${key}`} hint={hint}>
      <input
        id={`new-${key}`}
        value={draft[key] as string}
        onChange={(event) => set({ [key]: event.target.value })}
        {...(hint ? { "aria-describedby": `new-${key}-hint` } : {})}
        {...extra}
      />
    </Field>
  );
  return (
    <form onSubmit={submit} aria-label="Create an account" className="stack">
      <div className="columns">
        {input("Username", "username", { required: true, autoComplete: "off" }, "3 to 64 letters, digits, _ . @ -")}
        {input(
          "Password",
          "password",
          { required: true, type: "password", autoComplete: "new-password" },
          "At least 8 characters",
        )}
        <Field label="Role" id="new-role">
          <select
            id="new-role"
            value={draft.role}
            onChange={(event) => set({ role: event.target.value as OnboardingDraft["role"] })}
          >
            <option value="customer">Customer</option>
            <option value="operator">Operator</option>
          </select>
        </Field>
        {input("Time zone", "timeZone", {}, "IANA name, e.g. Asia/Kolkata")}
      </div>
      <fieldset>
        <legend>Opening credits</legend>
        <div className="columns">
          {input("SMS credits", "sms", { inputMode: "decimal" })}
          {input("WhatsApp credits", "whatsapp", { inputMode: "decimal" })}
          {input("Email credits", "email", { inputMode: "decimal" })}
          {input("Voice credits", "voice", { inputMode: "decimal" })}
        </div>
      </fieldset>
      <div className="columns">
        {input(
          "Requests per minute of the first key",
          "rateLimit",
          { inputMode: "numeric" },
          "0 = unlimited; default 60",
        )}
        {input("SMS per day (flood limit)", "floodLimit", { inputMode: "numeric" }, "0 or empty = no limit")}
      </div>
      <fieldset>
        <legend>SMS routes</legend>
        {ROUTE_CODES.map((code) => (
          <div className="check" key={code}>
            <input
              id={`new-route-${code}`}
              type="checkbox"
              checked={draft.routes.includes(code)}
              onChange={(event) =>
                set({ routes: event.target.checked ? [...draft.routes, code] : draft.routes.filter((r) => r !== code) })
              }
            />
            <label htmlFor={`new-route-${code}`}>{code}</label>
          </div>
        ))}
      </fieldset>
      {input(
        "Sender IDs (approved at once)",
        "senderIds",
        {},
        "Separated by commas, e.g. ACMECO, ACMEOT; white-listed as DLT headers too",
      )}
      {input("DLT entity IDs", "entities", {}, "Separated by commas; the first is the default")}
      <Field
        label="Templates (approved at once)"
        id="new-templates"
        hint="One per line, {#var#} for each variable part"
      >
        <textarea
          id="new-templates"
          rows={3}
          value={draft.templates}
          aria-describedby="new-templates-hint"
          onChange={(event) => set({ templates: event.target.value })}
        />
      </Field>
      <button type="submit" className="primary" disabled={create.isPending}>
        Create account
      </button>
      <ErrorNotice error={create.error} title="Not created" />
      {create.data ? (
        <Success>
          Account{" "}
          <Link to={`/operator/accounts/${encodeURIComponent(create.data.data.username)}`}>
            {create.data.data.username}
          </Link>{" "}
          created. Its API key (shown only now):
          <code className="secret" data-testid="new-account-key">
            {create.data.data.api_key}
          </code>
          {create.data.data.ready
            ? "It can send SMS now."
            : `Before it can send SMS: ${create.data.data.missing.map((m) => m.message).join(" ")}`}
        </Success>
      ) : null}
    </form>
  );
}

export default function Accounts() {
  const session = useSignedIn();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState({ q: "", status: "" });
  const [filters, setFilters] = useState({ q: "", status: "" });
  const [page, setPage] = useState(1);
  const accounts = useQuery({
    queryKey: ["operator", "accounts", filters, page],
    queryFn: () => paged<OperatorAccount>("/admin/api/accounts", { ...filters, page, per_page: 25 }),
  });
  const search = (event: FormEvent) => {
    event.preventDefault();
    setPage(1);
    setFilters(draft);
  };
  return (
    <>
      <PageTitle>Accounts</PageTitle>
      <form className="filters" onSubmit={search} aria-label="Search accounts">
        <Field label="Username contains" id="account-search">
          <input
            id="account-search"
            type="search"
            value={draft.q}
            onChange={(event) => setDraft({ ...draft, q: event.target.value })}
          />
        </Field>
        <Field label="Status" id="account-status">
          <select
            id="account-status"
            value={draft.status}
            onChange={(event) => setDraft({ ...draft, status: event.target.value })}
          >
            <option value="">Any</option>
            <option value="active">active</option>
            <option value="inactive">inactive</option>
            <option value="blocked">blocked</option>
          </select>
        </Field>
        <button type="submit" className="primary">
          Search
        </button>
      </form>
      <ErrorNotice error={accounts.error} />
      {accounts.isPending ? <Busy /> : null}
      {accounts.data ? (
        <>
          <div className="table-wrap">
            <table data-testid="accounts">
              <caption>Accounts, oldest first</caption>
              <thead>
                <tr>
                  <th scope="col">Username</th>
                  <th scope="col">Role</th>
                  <th scope="col">Status</th>
                  <th scope="col">SMS credits</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {accounts.data.data.map((account) => (
                  <tr key={account.id}>
                    <td>
                      <Link to={`/operator/accounts/${encodeURIComponent(account.username)}`}>{account.username}</Link>
                    </td>
                    <td>{account.role}</td>
                    <td>
                      <StatusBadge status={account.status} />
                    </td>
                    <td>{formatNumber(account.balances.sms)}</td>
                    <td>{formatTime(account.created_at, session.time_zone)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {accounts.data.data.length === 0 ? <p>No account matches.</p> : null}
          <Pager meta={accounts.data.meta} onPage={setPage} />
        </>
      ) : null}
      {canDo(session, "staff_admin") ? (
        <section aria-labelledby="onboard-title">
          <h2 id="onboard-title">New account</h2>
          <OnboardingForm
            onCreated={() => void queryClient.invalidateQueries({ queryKey: ["operator", "accounts"] })}
          />
        </section>
      ) : null}
    </>
  );
}
