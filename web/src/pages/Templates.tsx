// DLT content templates: the account's templates by status a page at a time, and a new one
// (pending until the operator approves it; only approved ones match transactional SMS).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { data, paged } from "../api.js";
import { formatTime } from "../format.js";
import { canDo, useSignedIn } from "../session.js";
import type { Template } from "../types.js";
import { Busy, ErrorNotice, Field, Pager, PageTitle, RejectionReason, RoleNote, StatusBadge, Success } from "../ui.js";

export interface TemplateDraft {
  name: string;
  content: string;
  dlt_template_id: string;
  entity_id: string;
}

/** The body of POST /api/v2/templates: the optional ids only when filled in. */
export function templateBody(draft: TemplateDraft) {
  return {
    name: draft.name,
    content: draft.content,
    ...(draft.dlt_template_id.trim() ? { dlt_template_id: draft.dlt_template_id.trim() } : {}),
    ...(draft.entity_id.trim() ? { entity_id: draft.entity_id.trim() } : {}),
  };
}

const EMPTY: TemplateDraft = { name: "", content: "", dlt_template_id: "", entity_id: "" };

export function TemplateForm({ onCreated }: { onCreated: (template: Template) => void }) {
  const [draft, setDraft] = useState(EMPTY);
  const create = useMutation({
    mutationFn: () => data<Template>("/api/v2/templates", { json: templateBody(draft) }),
    onSuccess: (template) => {
      setDraft(EMPTY);
      onCreated(template);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="Register a template">
      <Field label="Template name" id="template-name">
        <input
          id="template-name"
          required
          maxLength={100}
          value={draft.name}
          onChange={(event) => setDraft({ ...draft, name: event.target.value })}
        />
      </Field>
      <Field
        label="Content"
        id="template-content"
        hint="As registered on DLT; write {#var#} for each variable part (up to 30 characters)"
      >
        <textarea
          id="template-content"
          rows={3}
          required
          maxLength={2000}
          aria-describedby="template-content-hint"
          value={draft.content}
          onChange={(event) => setDraft({ ...draft, content: event.target.value })}
        />
      </Field>
      <div className="columns">
        <Field label="DLT template ID" id="template-dlt-id">
          <input
            id="template-dlt-id"
            maxLength={30}
            value={draft.dlt_template_id}
            onChange={(event) => setDraft({ ...draft, dlt_template_id: event.target.value })}
          />
        </Field>
        <Field label="DLT entity ID" id="template-entity">
          <input
            id="template-entity"
            maxLength={30}
            value={draft.entity_id}
            onChange={(event) => setDraft({ ...draft, entity_id: event.target.value })}
          />
        </Field>
      </div>
      <button type="submit" className="primary" disabled={create.isPending}>
        Register template
      </button>
      <ErrorNotice error={create.error} title="Not registered" />
      {create.data ? (
        <Success>Template {create.data.name} registered; it waits for the operator's approval.</Success>
      ) : null}
    </form>
  );
}

export default function Templates() {
  const session = useSignedIn();
  const queryClient = useQueryClient();
  const [status, setStatus] = useState("");
  const [page, setPage] = useState(1);
  const templates = useQuery({
    queryKey: ["templates", "list", status, page],
    queryFn: () => paged<Template>("/api/v2/templates", { status, page, per_page: 25 }),
  });
  return (
    <>
      <PageTitle>Templates</PageTitle>
      <Field label="Status" id="template-status">
        <select
          id="template-status"
          value={status}
          onChange={(event) => {
            setStatus(event.target.value);
            setPage(1);
          }}
        >
          <option value="">Any</option>
          <option value="pending">pending</option>
          <option value="approved">approved</option>
          <option value="rejected">rejected</option>
        </select>
      </Field>
      <ErrorNotice error={templates.error} />
      {templates.isPending ? <Busy /> : null}
      {templates.data ? (
        <>
          <div className="table-wrap">
            <table data-testid="templates">
              <caption>Templates, oldest first</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Content</th>
                  <th scope="col">DLT ids</th>
                  <th scope="col">Status</th>
                  <th scope="col">Registered</th>
                </tr>
              </thead>
              <tbody>
                {templates.data.data.map((template) => (
                  <tr key={template.id}>
                    <td>{template.name}</td>
                    <td className="text-cell">{template.content}</td>
                    <td>{[template.dlt_template_id, template.entity_id].filter(Boolean).join(" / ") || "none"}</td>
                    <td>
                      <StatusBadge status={template.status} />
                      <RejectionReason row={template} />
                    </td>
                    <td>{formatTime(template.created_at, session.time_zone)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {templates.data.data.length === 0 ? <p>No template.</p> : null}
          <Pager meta={templates.data.meta} onPage={setPage} />
        </>
      ) : null}
      <section aria-labelledby="new-template-title">
        <h2 id="new-template-title">New template</h2>
        {canDo(session, "send") ? (
          <TemplateForm onCreated={() => void queryClient.invalidateQueries({ queryKey: ["templates"] })} />
        ) : (
          <RoleNote role={session.user_role} what="registering a template" capability="send" />
        )}
      </section>
    </>
  );
}
