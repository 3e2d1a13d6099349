// Builders for the http-sms tests: a claimed SMS row and a valid aggregator configuration.

import type { MessageRow } from "../../../src/base/store/schema.js";
import { type HttpSmsConfig, parseHttpSmsConfig } from "../../../src/delivery/carriers/http-sms/index.js";
import { messageRow } from "../../helpers/message-row.js";

/** A claimed SMS as the dispatcher hands it over (the columns the connector reads, the rest empty). */
export function smsRow(changes: Partial<MessageRow> = {}, n = 0): MessageRow {
  return messageRow({
    id: `q01TESTSMS${String(n).padStart(16, "0")}`,
    broadcast_id: `1_20261122_${String(n).padStart(6, "0")}`,
    sender: "SWBTST",
    body: "Your OTP is 123456",
    encoding: "gsm7",
    route: "T",
    dlt_entity_id: "1101234567890123456",
    dlt_template_id: "1107161234567890123",
    ...changes,
  });
}

/** A GET aggregator with a JSON answer; `changes` replace top-level fields. */
export function aggregatorConfig(baseUrl: string, changes: Partial<HttpSmsConfig> = {}): HttpSmsConfig {
  return parseHttpSmsConfig({
    name: "agg",
    method: "GET",
    url: `${baseUrl}/api/send?to={to}&sender={from}&text={text}&unicode={unicode}&pe_id={dlt_entity_id}&template_id={dlt_template_id}&ref={message_id}&dlr_url={callback_url}`,
    auth: { type: "none" },
    response: { type: "json", id_path: "data.message_id" },
    timeout_ms: 2_000,
    max_connections: 4,
    rate_per_second: 1_000,
    ...changes,
  });
}

/**
 * An http-sms connector definition (as the operator API and `carriers add` take it) for the fake
 * aggregator at `baseUrl`: a GET with a bearer token, reports called back on a GET with id and
 * status from loopback addresses only (where the fake aggregator calls from); `changes` replace
 * top-level fields.
 */
export function aggregatorDefinition(baseUrl: string, name: string, changes: Record<string, unknown> = {}) {
  return {
    name,
    type: "http-sms",
    method: "GET",
    url: `${baseUrl}/api/send?to={to}&text={text}&pe={dlt_entity_id}&dlr={callback_url}`,
    auth: { type: "bearer", token: "tok-123456" },
    response: { type: "json", id_path: "data.message_id" },
    timeout_ms: 4_000,
    max_connections: 2,
    rate_per_second: 100,
    dlr: {
      method: "GET",
      source: "query",
      id_field: "id",
      status_field: "status",
      delivered_values: ["DELIVRD"],
      failed_values: ["UNDELIV"],
      allowed_ips: ["127.0.0.0/8", "::1"],
    },
    ...changes,
  };
}
