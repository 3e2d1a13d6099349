// The WhatsApp and voice sends in the console at phone width (console audit C5, C6, C7): a template
// with a document header asks for the document's link and is sent with it, a text header's value
// is asked for too; an account without WhatsApp is told so in words, with no form to send; a call's
// page shows its outcome (status, length, units) and no empty encoding.
import { beforeAll, expect, it } from "vitest";
import { updateWhatsAppSettings } from "../../../src/channels/whatsapp/settings.js";
import { buildVoiceAccount, CALLER, FAST_VOICE_SIMULATOR } from "../../channels/voice/helpers.js";
import { connectSimulatedWhatsApp } from "../../channels/whatsapp/helpers.js";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  noneLoading,
  useConsole,
} from "../../helpers/browser.js";
import { buildAccount, call, type TestAccount } from "../../helpers/gateway.js";

const SHOTS = process.env.SWITCHBOARD_SHOTS_DIR;

describeInBrowser("console in the browser: WhatsApp header media, WhatsApp off, a call's page", () => {
  const { gateway, operator, phonePage } = useConsole({ env: FAST_VOICE_SIMULATOR });
  let connected: TestAccount;
  let off: TestAccount;

  beforeAll(async () => {
    connected = await buildAccount(gateway(), { credits: { whatsapp: 20 }, sender: null });
    await connectSimulatedWhatsApp(gateway(), connected.id);
    off = await buildAccount(gateway(), { credits: { whatsapp: 50 }, sender: null });
    await updateWhatsAppSettings(gateway().db.store.db, gateway().clock, off.id, { enabled: false });
  });

  it("sends a template with a document header, its link asked for; a text header's value too", async () => {
    const { page, context, problems } = await phonePage(connected, "/send?channel=whatsapp");
    await page.getByLabel("To (WhatsApp number)").fill("+919876543210");
    const template = page.getByLabel("Template", { exact: true });
    await template.locator("option", { hasText: "invoice_ready (en)" }).waitFor({ state: "attached" });
    await template.selectOption({ label: "invoice_ready (en)" });
    await page.getByLabel("Value of {{1}}").fill("Asha");
    await page.getByLabel("Value of {{2}}").fill("INV-42");
    const link = page.getByLabel("Link to the header document");
    expect(await page.locator("#wa-header-url-hint").textContent()).toContain("public https:// link");
    await link.fill("https://files.example.com/inv-42.pdf");
    await expectAccessible(page, "WhatsApp send with a document header");
    await expectNoHorizontalScroll(page, "WhatsApp send with a document header");
    await page.getByRole("button", { name: "Send WhatsApp message" }).click();
    await page.getByText("Accepted by WhatsApp as").waitFor();
    expect(await page.getByRole("alert").count()).toBe(0);

    await template.selectOption({ label: "welcome_offer (en)" });
    expect(await link.count()).toBe(0);
    await page.getByLabel("Header value of {{1}}").fill("Asha");
    await page.getByLabel("Value of {{1}}", { exact: true }).fill("10%");
    await page.getByLabel("Value of {{2}}", { exact: true }).fill("HELLO10");
    await page.getByRole("button", { name: "Send WhatsApp message" }).click();
    await expect.poll(() => page.getByText("Accepted by WhatsApp as").count()).toBe(1);
    expect(await page.getByRole("alert").count()).toBe(0);

    const sent = await call(gateway(), "GET", "/api/v2/messages?channel=whatsapp", {
      headers: { authorization: `Bearer ${connected.apiKey}` },
    });
    expect(sent.body.data.length).toBe(2);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("tells an account without WhatsApp in words, with nothing to send", async () => {
    const { page, context, problems } = await phonePage(off, "/send?channel=whatsapp");
    const notice = page.getByTestId("whatsapp-disabled");
    await notice.waitFor();
    expect(await notice.textContent()).toContain("WhatsApp is not turned on for this account");
    expect(await page.getByRole("button", { name: "Send WhatsApp message" }).count()).toBe(0);
    expect(await page.getByRole("alert").count()).toBe(0);
    expect(await page.locator("main").textContent()).not.toContain("module_disabled");
    await expectAccessible(page, "WhatsApp send, module off");
    await expectNoHorizontalScroll(page, "WhatsApp send, module off");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("shows a call's status, length and units on its page, and no encoding", async () => {
    const caller = await buildVoiceAccount(gateway());
    const placed = await call(gateway(), "POST", "/api/v2/voice/calls", {
      headers: { authorization: `Bearer ${caller.apiKey}` },
      json: { from: CALLER, to: "+919876543210", text: "Hello from Switchboard" },
    });
    expect(placed.status, placed.text).toBe(201);
    const { page, context, problems } = await phonePage(caller, `/messages/${placed.body.data.message_id}`);
    await noneLoading(page);
    const facts = page.getByTestId("message-call");
    await expect
      .poll(() => facts.textContent(), { timeout: 15_000 })
      .toMatch(/^completed, \d+ seconds? long, \d+ units?$/);
    expect(await page.getByText("Encoding and parts").count()).toBe(0);
    await expectNoHorizontalScroll(page, "a call's page");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("tells an account with no approved sending domain so, with the way to add one, and offers no send", async () => {
    const mailer = await buildAccount(gateway(), { credits: { email: 10 }, sender: null });
    const asOperator = { authorization: `Bearer ${operator().apiKey}` };
    const asked = await call(gateway(), "POST", "/api/v2/email/domains", {
      headers: { authorization: `Bearer ${mailer.apiKey}` },
      json: { domain: "news.example.com" },
    });
    expect(asked.status).toBe(201);
    const { page, context, problems } = await phonePage(mailer, "/send?channel=email");
    const notice = page.getByTestId("email-no-domain");
    await notice.waitFor();
    expect(await notice.textContent()).toContain("no approved sending domain");
    expect(await notice.textContent()).toContain("news.example.com is waiting for the operator's approval");
    expect(await page.getByRole("button", { name: "Send email" }).count()).toBe(0);
    await expectAccessible(page, "email send without a domain");
    await expectNoHorizontalScroll(page, "email send without a domain");
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/send-email-no-domain-390.png`, fullPage: true });
    await notice.getByRole("link", { name: /Email sending domains/ }).click();
    await page.getByRole("heading", { name: "Email sending domains" }).waitFor();
    // The link opens the page at its section, not at the top (five sections above it at 390 px).
    expect(new URL(page.url()).hash).toBe("#email-domains");
    const top = () => page.locator("#email-domains").evaluate((e) => e.getBoundingClientRect().top);
    const height = Number(await page.evaluate("window.innerHeight"));
    await expect.poll(top).toBeGreaterThanOrEqual(0);
    expect(await top()).toBeLessThan(height / 2);
    expect(await page.evaluate("window.scrollY")).toBeGreaterThan(0);

    const approved = await call(
      gateway(),
      "PUT",
      `/admin/api/accounts/${mailer.username}/email/domains/news.example.com`,
      {
        headers: asOperator,
        json: { status: "approved" },
      },
    );
    expect(approved.status).toBe(200);
    await page.goto("/send?channel=email");
    await page.getByRole("button", { name: "Send email" }).waitFor();
    // The form shows before the domains arrive, with an example address until they do.
    await expect.poll(() => page.locator("#email-from-hint").textContent()).toContain("news.example.com");
    expect(await notice.count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });
});
