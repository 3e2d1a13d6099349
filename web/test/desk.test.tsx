// @vitest-environment happy-dom
// The operator's desk forms in happy-dom against a local HTTP server standing in for the gateway:
// a balance correction sends the wallet, a signed number (a typed "−" read as "-") and the reason,
// and shows the new balance or the refusal in words; export links carry the page's filters.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act } from "react";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { setCsrfToken } from "../src/api.js";
import { ExportLinks, exportHref } from "../src/exports.js";
import { AdjustForm } from "../src/pages/operator/account-desk.js";
import { byLabel, confirm, type Rendered, render, type } from "./render.js";

let server: Server;
const received: { url: string; body: unknown }[] = [];
let answer: { status: number; body: unknown } = { status: 200, body: {} };

beforeAll(async () => {
  server = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk) => {
      text += chunk;
    });
    request.on("end", () => {
      received.push({ url: request.url ?? "", body: text ? JSON.parse(text) : undefined });
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

async function adjustWith(amount: string, reason: string, asked: string) {
  const client = new QueryClient({ defaultOptions: { mutations: { retry: false } } });
  let done = 0;
  rendered = await render(
    <QueryClientProvider client={client}>
      <AdjustForm username="acme co" onDone={() => done++} />
    </QueryClientProvider>,
  );
  const { container } = rendered;
  await type(byLabel(container, "Credits (+ or −)"), amount);
  await type(byLabel(container, "Reason"), reason);
  await act(async () => container.querySelector("form")!.requestSubmit());
  // The submit only asks: nothing is sent until the Confirm button naming the change is pressed.
  expect(received).toEqual([]);
  await confirm(container, asked);
  for (let i = 0; i < 100 && !container.querySelector("[role=status], [role=alert]"); i++) {
    await act(async () => new Promise((resolve) => setTimeout(resolve, 10)));
  }
  return { container, done: () => done };
}

it("sends a signed amount and the reason, and shows the balance it left", async () => {
  answer = {
    status: 200,
    body: {
      status: "success",
      data: { account: "acme co", wallet: "sms", adjusted: -5, reason: "Charged twice", balance: 95 },
    },
  };
  const { container, done } = await adjustWith("−5", "  Charged twice ", "take 5 credits from acme co");
  expect(received).toEqual([
    {
      url: "/admin/api/accounts/acme%20co/credits/adjust",
      body: { wallet: "sms", amount: -5, reason: "Charged twice" },
    },
  ]);
  expect(container.querySelector("[role=status]")?.textContent).toBe(
    "Took away 5 credits (Charged twice): the sms wallet of acme co now holds 95.",
  );
  expect(done()).toBe(1);
});

it("shows a refusal in words with its code", async () => {
  answer = {
    status: 402,
    body: {
      status: "error",
      message: "The sms wallet of acme co holds 3 credits: it cannot lose 50.",
      error: { code: "insufficient_credits" },
    },
  };
  const { container, done } = await adjustWith("-50", "Too much", "take 50 credits from acme co");
  const alert = container.querySelector("[role=alert]");
  expect(alert?.textContent).toContain("Not corrected: The sms wallet of acme co holds 3 credits: it cannot lose 50.");
  expect(alert?.querySelector(".error-code")?.textContent).toBe("insufficient_credits");
  expect(done()).toBe(0);
});

it("links the exports with the page's filters, empty ones left out", async () => {
  expect(exportHref("/admin/api/messages/export", "jsonl", { account: "acme", status: "", route: "T" })).toBe(
    "/admin/api/messages/export?account=acme&route=T&format=jsonl",
  );
  rendered = await render(<ExportLinks path="/api/v2/credits/export" what="Export the whole ledger" />);
  const links = [...rendered.container.querySelectorAll("a")].map((a) => [a.textContent, a.getAttribute("href")]);
  expect(links).toEqual([
    ["CSV", "/api/v2/credits/export?format=csv"],
    ["JSON Lines", "/api/v2/credits/export?format=jsonl"],
  ]);
  expect(rendered.container.querySelectorAll("a[download]")).toHaveLength(2);
});
