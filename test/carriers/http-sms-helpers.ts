// Builders for the http-sms tests: a claimed SMS row and a valid aggregator configuration.
import { type HttpSmsConfig, parseHttpSmsConfig } from "../../src/carriers/http-sms/index.js";
import type { MessageRow } from "../../src/store/schema.js";

/** A claimed SMS as the dispatcher hands it over (the columns the connector reads, the rest empty). */
export function smsRow(changes: Partial<MessageRow> = {}, n = 0): MessageRow {
  const row: MessageRow = {
    id: `q01TESTSMS${String(n).padStart(16, "0")}`,
    account_id: 1,
    channel: "sms",
    broadcast_id: `1_20261122_${String(n).padStart(6, "0")}`,
    recipient: "9876543210",
    sender: "SWBTST",
    body: "Your OTP is 123456",
    encoding: "gsm7",
    segments: 1,
    flash: 0,
    route: "T",
    lane: 0,
    wallet: "sms",
    credits: 1000,
    status: "queued",
    due_at: 0,
    lease_until: null,
    attempts: 1,
    connector: null,
    upstream_id: null,
    error_code: null,
    error_message: null,
    dlt_entity_id: "1101234567890123456",
    dlt_template_id: "1107161234567890123",
    meta: null,
    template_id: null,
    job_id: null,
    created_at: 0,
    submitted_at: null,
    done_at: null,
    delivered_at: null,
    read_at: null,
    ...changes,
  } as MessageRow;
  return row;
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
