// Reads the aggregator's answer to a send: accepted with its message id, refused for good,
// or refused for now (queued again).

import { UPSTREAM_ID_MAX_LENGTH } from "../../../domain/messages/index.js";
import type { SubmitResult } from "../../dispatch/index.js";
import type { HttpSmsConfig } from "./config.js";

/** The value at a dot path (`data.0.id`: arrays by index); undefined when any step is missing. */
export function valueAtPath(root: unknown, path: string): unknown {
  let current = root;
  for (const step of path.split(".")) {
    if (current === null || typeof current !== "object") return undefined;
    if (Array.isArray(current)) {
      if (!/^\d+$/.test(step)) return undefined;
      current = current[Number(step)];
    } else {
      if (!Object.hasOwn(current, step)) return undefined;
      current = (current as Record<string, unknown>)[step];
    }
  }
  return current;
}

/** A scalar as text (ids and statuses come as strings or numbers); undefined for anything else. */
export function scalarText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

export function isRetryableStatus(config: HttpSmsConfig, status: number): boolean {
  return config.retryable_statuses ? config.retryable_statuses.includes(status) : status === 429 || status >= 500;
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}

/** A 2xx with the carrier's id; one longer than any carrier gives (it is kept and indexed with the message) fails for good. */
function accepted(id: string, said: string, what: string): SubmitResult {
  if (id.length <= UPSTREAM_ID_MAX_LENGTH) return { ok: true, upstreamId: id };
  return {
    ok: false,
    retryable: false,
    code: "bad_response",
    message: `${said} (${what} is longer than ${UPSTREAM_ID_MAX_LENGTH} characters)`,
  };
}

export function readAnswer(config: HttpSmsConfig, status: number, text: string): SubmitResult {
  const said = `HTTP ${status}${text ? `: ${excerpt(text)}` : ""}`;
  if (status < 200 || status >= 300) {
    if (isRetryableStatus(config, status)) {
      return { ok: false, retryable: true, code: status === 429 ? "throttled" : "upstream_unavailable", message: said };
    }
    return { ok: false, retryable: false, code: "rejected", message: said };
  }
  // A 2xx may already have sent the SMS: whatever is wrong with it, the message is not resent.
  const response = config.response;
  if (response.type === "text") {
    const match = new RegExp(response.id_regex).exec(text);
    const id = match?.groups?.id ?? match?.[1] ?? undefined;
    if (id) return accepted(id, said, "the message id");
    return { ok: false, retryable: false, code: "rejected", message: `${said} (no message id in the answer)` };
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, retryable: false, code: "bad_response", message: `${said} (not JSON)` };
  }
  if (response.success_path) {
    const flag = scalarText(valueAtPath(body, response.success_path));
    if (flag === undefined || !response.success_values?.includes(flag)) {
      return { ok: false, retryable: false, code: "rejected", message: said };
    }
  }
  const id = scalarText(valueAtPath(body, response.id_path));
  if (id) return accepted(id, said, `the message id at ${response.id_path}`);
  return {
    ok: false,
    retryable: false,
    code: "bad_response",
    message: `${said} (no message id at ${response.id_path})`,
  };
}
