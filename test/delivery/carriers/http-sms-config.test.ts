// parseHttpSmsConfig: what the schema refuses and the checks it cannot express, each with an
// error that says what to fix.
import { describe, expect, it } from "vitest";
import { parseHttpSmsConfig } from "../../../src/delivery/carriers/http-sms/index.js";

const valid = {
  name: "agg",
  method: "POST",
  url: "https://api.example.in/v1/sms?key={to}",
  body: { content_type: "application/json", template: '{"to":"{to}","text":"{text}","unicode":{unicode}}' },
  auth: { type: "bearer", token: "t" },
  response: { type: "json", id_path: "data.id" },
  timeout_ms: 5_000,
  max_connections: 8,
  rate_per_second: 100,
};

describe("parseHttpSmsConfig", () => {
  it("accepts a valid configuration as it is", () => {
    expect(parseHttpSmsConfig(valid)).toEqual(valid);
  });

  it.each([
    ["an unknown field", { ...valid, extra: 1 }, "must not have additional properties"],
    ["a time-out beyond the lease", { ...valid, timeout_ms: 20_000 }, "/timeout_ms"],
    ["an unknown auth kind", { ...valid, auth: { type: "digest" } }, "/auth"],
    ["a header name with a space", { ...valid, headers: { "X Key": "v" } }, "must not have additional properties"],
    ["an unknown placeholder", { ...valid, url: "https://a.example/s?to={phone}" }, "unknown placeholder(s) {phone}"],
    ["a placeholder in the host", { ...valid, url: "https://{from}.example/s" }, "cannot hold placeholders"],
    ["a relative URL", { ...valid, url: "/send?to={to}" }, "not an absolute URL"],
    ["an ftp URL", { ...valid, url: "ftp://a.example/s" }, "http or https"],
    ["a GET with a body", { ...valid, method: "GET" }, "GET request has no body"],
    ["a POST without a body", { ...valid, body: undefined }, "needs `body`"],
    [
      "a JSON template with an unquoted string placeholder",
      { ...valid, body: { content_type: "application/json", template: '{"text":{text}}' } },
      "does not render to JSON",
    ],
    ["a regex that does not compile", { ...valid, response: { type: "text", id_regex: "^OK:(" } }, "does not compile"],
    [
      "a success path without values",
      { ...valid, response: { type: "json", id_path: "id", success_path: "ok" } },
      "success_values is required",
    ],
  ])("refuses %s", (_what, input, message) => {
    expect(() => parseHttpSmsConfig(input)).toThrow(message);
  });
});
