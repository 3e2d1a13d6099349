// What the client hears, and what the failed message records, when the upstream refused a send.
import { GatewayError } from "../../base/core/errors.js";
import { GraphError } from "./graph.js";

export interface Refusal {
  error: GatewayError;
  /** Stored on the failed message. */
  upstreamCode: string;
  templatesStale: boolean;
}

/** What the client hears when the upstream did not accept the message. */
export function refusalOf(error: unknown, timeoutMs: number): Refusal {
  if (!(error instanceof GraphError)) {
    return {
      error: new GatewayError("upstream_error", "Upstream provider error: the send failed; retry."),
      upstreamCode: "upstream_error",
      templatesStale: false,
    };
  }
  const upstream = {
    kind: error.kind,
    ...(error.httpStatus !== undefined ? { http_status: error.httpStatus } : {}),
    ...(error.code !== undefined ? { code: error.code } : {}),
    ...(error.subcode !== undefined ? { subcode: error.subcode } : {}),
    message: error.message,
    ...(error.details !== undefined ? { details: error.details } : {}),
    ...(error.fbtraceId !== undefined ? { fbtrace_id: error.fbtraceId } : {}),
  };
  const code = String(error.code ?? error.kind);
  switch (error.code) {
    // Re-engagement: WhatsApp counts the window closed (its clock decides).
    case 131047:
      return {
        error: new GatewayError("template_required", undefined, { upstream }),
        upstreamCode: code,
        templatesStale: false,
      };
    // The template or its translation is gone (132001), or paused (132015) or disabled (132016)
    // upstream since the last sync: no longer approved, as a stored paused one would be; sync again.
    case 132001:
    case 132015:
    case 132016:
      return {
        error: new GatewayError("template_not_found", `Template not found or not approved upstream: ${error.message}`, {
          upstream,
        }),
        upstreamCode: code,
        templatesStale: true,
      };
    // A test number may message only its allowed list.
    case 131030:
      return {
        error: new GatewayError("invalid_recipient", `The recipient is not allowed for this sender: ${error.message}`, {
          field: "to",
          upstream,
        }),
        upstreamCode: code,
        templatesStale: false,
      };
  }
  const message =
    error.kind === "timeout"
      ? `Upstream provider error: WhatsApp did not answer within ${timeoutMs} ms; nothing was charged. Retry with the same Idempotency-Key.`
      : error.kind === "network"
        ? `Upstream provider error: WhatsApp could not be reached (${error.message}); nothing was charged. Retry.`
        : `Upstream provider error: ${error.message}; nothing was charged.`;
  return {
    error: new GatewayError("upstream_error", message, { upstream }),
    upstreamCode: code,
    templatesStale: false,
  };
}
