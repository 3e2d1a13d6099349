// @vitest-environment happy-dom
// The console's forms in happy-dom against a local HTTP server that stands in for the gateway:
// what each form sends (only the fields filled in, numbers as numbers), and that an answer or a
// refusal is shown in words with its code. Also the throughput worked out from connector health.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, type ReactNode } from "react";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { setCsrfToken } from "../src/api.js";
import type { WorkerHealth } from "../src/operator-types.js";
import { TransferForm } from "../src/pages/Credits.js";
import { KeywordForm } from "../src/pages/Inbound.js";
import { EMPTY_ONBOARDING, listOf, OnboardingForm, onboardingBody } from "../src/pages/operator/Accounts.js";
import { decisionCall, holdersOf } from "../src/pages/operator/Approvals.js";
import { templateBody } from "../src/pages/Templates.js";
import { connectorRate, type Samples } from "../src/throughput.js";
import { byLabel, confirm, type Rendered, render, type } from "./render.js";

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: unknown;
}

let server: Server;
const received: Received[] = [];
let answer: { status: number; body: unknown } = { status: 200, body: {} };

beforeAll(async () => {
  server = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk) => {
      text += chunk;
    });
    request.on("end", () => {
      received.push({
        method: request.method ?? "",
        url: request.url ?? "",
        headers: request.headers,
        body: text ? JSON.parse(text) : undefined,
      });
      response.writeHead(answer.status, { "content-type": "application/json" });
      response.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  (window as unknown as { happyDOM: { setURL(url: string): void } }).happyDOM.setURL(`http://127.0.0.1:${port}/`);
  setCsrfToken("token-1");
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

let rendered: Rendered | undefined;
afterEach(() => {
  rendered?.unmount();
  rendered = undefined;
  received.length = 0;
});

function withQueries(node: ReactNode) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  return <QueryClientProvider client={client}>{node}</QueryClientProvider>;
}

async function submit(form: HTMLFormElement) {
  await act(async () => {
    form.requestSubmit();
  });
}

async function until(check: () => boolean) {
  for (let i = 0; i < 100 && !check(); i++) {
    await act(async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
    });
  }
  expect(check()).toBe(true);
}

describe("the onboarding form", () => {
  it("sends only what was filled in, numbers as numbers, lists split, and shows the key once made", async () => {
    expect(onboardingBody({ ...EMPTY_ONBOARDING, username: " acme ", password: "password-1" })).toEqual({
      username: "acme",
      password: "password-1",
      time_zone: "Asia/Kolkata",
      routes: ["T", "P"],
    });
    expect(listOf(" ACMECO, ,ACMEOT\nZED ")).toEqual(["ACMECO", "ACMEOT", "ZED"]);

    answer = {
      status: 201,
      body: { status: "success", data: { id: 9, username: "acme", api_key: "sb_secret", ready: true, missing: [] } },
    };
    rendered = await render(withQueries(<OnboardingForm />));
    const { container } = rendered;
    await type(byLabel(container, "Username"), "acme");
    await type(byLabel(container, "Password"), "password-1");
    await type(byLabel(container, "SMS credits"), "1000.5");
    await type(byLabel(container, "Sender IDs (approved at once)"), "ACMECO, ACMEOT");
    await type(byLabel(container, "DLT entity IDs"), "1101160000000000001");
    await type(
      byLabel<HTMLTextAreaElement>(container, "Templates (approved at once)"),
      "Your OTP is {#var#}\n\nCode {#var#}",
    );
    await submit(container.querySelector("form")!);
    await until(() => container.textContent?.includes("sb_secret") ?? false);
    expect(received[0]).toMatchObject({ method: "POST", url: "/admin/api/accounts" });
    expect(received[0]!.headers["x-csrf-token"]).toBe("token-1");
    expect(received[0]!.body).toEqual({
      username: "acme",
      password: "password-1",
      credits: { sms: 1000.5 },
      time_zone: "Asia/Kolkata",
      routes: ["T", "P"],
      sender_ids: ["ACMECO", "ACMEOT"],
      dlt_entity_ids: ["1101160000000000001"],
      templates: [{ content: "Your OTP is {#var#}" }, { content: "Code {#var#}" }],
    });
    expect(container.textContent).toContain("It can send SMS now.");
  });

  it("shows a refusal in words with its code", async () => {
    answer = {
      status: 409,
      body: { status: "error", message: "The username acme is taken.", error: { code: "conflict" } },
    };
    rendered = await render(withQueries(<OnboardingForm />));
    const { container } = rendered;
    await type(byLabel(container, "Username"), "acme");
    await type(byLabel(container, "Password"), "password-1");
    await submit(container.querySelector("form")!);
    await until(() => container.querySelector('[role="alert"]') !== null);
    const alert = container.querySelector('[role="alert"]')!;
    expect(alert.textContent).toContain("Not created: The username acme is taken.");
    expect(alert.querySelector(".error-code")?.textContent).toBe("conflict");
  });
});

describe("the account's forms", () => {
  it("registers a keyword with its reply, and one that only records without a reply field", async () => {
    answer = { status: 201, body: { status: "success", data: { id: 1, key: "INFO", status: "pending" } } };
    rendered = await render(withQueries(<KeywordForm onCreated={() => undefined} />));
    const { container } = rendered;
    await type(byLabel(container, "Keyword"), "info");
    await type(byLabel<HTMLTextAreaElement>(container, "Reply"), "Open 9 to 5");
    await submit(container.querySelector("form")!);
    await until(() => received.length === 1);
    expect(received[0]!.body).toEqual({ key: "info", response_type: "static", static_message: "Open 9 to 5" });

    const select = byLabel<HTMLSelectElement>(container, "Response");
    await act(async () => {
      select.value = "none";
      select.dispatchEvent(new Event("change", { bubbles: true }));
    });
    expect(() => byLabel(container, "Reply")).toThrow();
    await type(byLabel(container, "Keyword"), "vote");
    await submit(container.querySelector("form")!);
    await until(() => received.length === 2);
    expect(received[1]!.body).toEqual({ key: "vote", response_type: "none" });
  });

  it("transfers a decimal amount and says what is left", async () => {
    answer = {
      status: 200,
      body: { status: "success", data: { transfer_id: "t1", recipient_username: "bob", amount: 2.5, balance: 97.5 } },
    };
    rendered = await render(withQueries(<TransferForm onDone={() => undefined} />));
    const { container } = rendered;
    await type(byLabel(container, "To account (username)"), " bob ");
    await type(byLabel(container, "SMS credits"), "2.5");
    await submit(container.querySelector("form")!);
    expect(received).toEqual([]);
    await confirm(container, "send 2.5 credits to bob");
    await until(() => container.textContent?.includes("97.5 left") ?? false);
    expect(received[0]).toMatchObject({
      url: "/api/v2/credits/transfer",
      body: { recipient_username: "bob", amount: 2.5 },
    });
  });

  it("sends a template's ids only when given", () => {
    expect(templateBody({ name: "otp", content: "Code {#var#}", dlt_template_id: " ", entity_id: "" })).toEqual({
      name: "otp",
      content: "Code {#var#}",
    });
    expect(templateBody({ name: "otp", content: "x", dlt_template_id: " 1107 ", entity_id: "1101" })).toMatchObject({
      dlt_template_id: "1107",
      entity_id: "1101",
    });
  });
});

describe("the approval queue's calls", () => {
  it("decides each kind through its own operator call", () => {
    const item = { id: 4, account: "acme shop", value: "shop.example.com", detail: null, created_at: "" };
    expect(decisionCall({ ...item, kind: "template" }, true)).toEqual({
      method: "POST",
      path: "/admin/api/templates/4/approve",
    });
    expect(decisionCall({ ...item, kind: "dlt_header" }, false)).toEqual({
      method: "POST",
      path: "/admin/api/dlt/headers/4/reject",
    });
    expect(decisionCall({ ...item, kind: "email_domain" }, true)).toEqual({
      method: "PUT",
      path: "/admin/api/accounts/acme%20shop/email/domains/shop.example.com",
      json: { status: "approved" },
    });
    // A rejection's reason, trimmed, in its body; none when blank, and never on an approval.
    expect(decisionCall({ ...item, kind: "keyword" }, false, "  Not yours. ")).toEqual({
      method: "POST",
      path: "/admin/api/keywords/4/reject",
      json: { reason: "Not yours." },
    });
    expect(decisionCall({ ...item, kind: "keyword" }, false, "  ")).toEqual({
      method: "POST",
      path: "/admin/api/keywords/4/reject",
    });
    expect(decisionCall({ ...item, kind: "keyword" }, true, "x")).toEqual({
      method: "POST",
      path: "/admin/api/keywords/4/approve",
    });
    expect(decisionCall({ ...item, kind: "email_domain" }, false, "No SPF.")).toMatchObject({
      json: { status: "rejected", reason: "No SPF." },
    });
    // A shared domain's approval carries confirm_shared only once confirmed, and never a rejection.
    expect(decisionCall({ ...item, kind: "email_domain" }, true, "", true)).toEqual({
      method: "PUT",
      path: "/admin/api/accounts/acme%20shop/email/domains/shop.example.com",
      json: { status: "approved", confirm_shared: true },
    });
    expect(decisionCall({ ...item, kind: "email_domain" }, false, "", true)).toMatchObject({
      json: { status: "rejected" },
    });
    expect(decisionCall({ ...item, kind: "email_domain" }, false, "", true).json).not.toHaveProperty("confirm_shared");
  });

  it("names a shared email domain's other holders", () => {
    const item = { id: 4, account: "acme", value: "shop.example.com", detail: null, created_at: "" };
    expect(holdersOf({ ...item, kind: "template" })).toBe("");
    expect(holdersOf({ ...item, kind: "email_domain", shared_with: [] })).toBe("");
    expect(
      holdersOf({
        ...item,
        kind: "email_domain",
        shared_with: [
          { account: "bob", status: "approved" },
          { account: "carol", status: "pending" },
        ],
      }),
    ).toBe("bob (approved), carol (pending)");
  });
});

describe("connector throughput", () => {
  const worker = (at: number, ok: number, failed = 0): WorkerHealth => ({
    type: "smpp",
    state: "up",
    reason: null,
    sessions: null,
    results: { ok, retryable: 0, failed, deferred: 0 },
    recent: { submits: ok + failed, refused: failed },
    last_error: null,
    retry_at: null,
    worker: "w1",
    updated_at: new Date(at).toISOString(),
  });

  it("is the change between two writes of a worker over the time between them", () => {
    const samples: Samples = new Map();
    expect(connectorRate(samples, "smsc", [worker(0, 100)])).toBeUndefined();
    // The same write read again changes nothing.
    expect(connectorRate(samples, "smsc", [worker(0, 100)])).toBeUndefined();
    expect(connectorRate(samples, "smsc", [worker(5_000, 600, 10)])).toEqual({ ok: 100, failed: 2 });
    expect(connectorRate(samples, "smsc", [worker(5_000, 600, 10)])).toEqual({ ok: 100, failed: 2 });
    // A restarted worker counts from zero again: no rate until its next write.
    expect(connectorRate(samples, "smsc", [worker(10_000, 5)])).toBeUndefined();
    expect(connectorRate(samples, "smsc", [worker(15_000, 55)])).toEqual({ ok: 10, failed: 0 });
  });
});
