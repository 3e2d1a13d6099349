// Every console page at phone width (390 × 844), for each kind of user: the operator's admin and
// its support staff, a reseller's owner, an admin user of the reseller's account and a sub-account.
// Each page is visited in one browser context per role, with long names and unbroken strings in
// the data (a contact group's name, a pending template's, a sub-account's username, a message's
// text), and must: not scroll sideways; show its heading and its primary action on the screen;
// label every field; keep every button between 32 px (tapped) and 100 px tall (a name of 100
// characters in a button's text made it 150–160 px, taller than the rest of its card). An
// answer's error naming a long setting wraps too. One gateway and one Chromium for the file.

import type { Locator, Page } from "playwright-core";
import { beforeAll, expect, it } from "vitest";
import { addSenderId, parsePriceCsv, replacePriceCard } from "../../../src/domain/accounts/index.js";
import { describeInBrowser, PHONE, useConsole, visit } from "../../helpers/browser.js";
import { buildAccount, call, type TestAccount } from "../../helpers/gateway.js";

const UNBROKEN = `Supercalifragilistic_${"x".repeat(60)}`;
const LONG_GROUP = `Customers in Mumbai ${"w".repeat(70)}`;
const LONG_SUB = "acme-wholesale-and-distribution-partners-limited";
const PASSWORD = "phone-test-password-1";

/** A page and what must show on it: its heading, and its primary action unless it has none for the role. */
interface Stop {
  path: string;
  heading: RegExp;
  action?: (page: Page) => Locator;
}

const button = (name: string | RegExp) => (page: Page) => page.locator("main").getByRole("button", { name });
const link = (name: string | RegExp) => (page: Page) => page.locator("main").getByRole("link", { name });

/** The pages of an account holder who may do everything on them (owner or admin). */
function accountStops(ids: { message: string; job: string; group: string }): Stop[] {
  return [
    { path: "/", heading: /^Overview$/, action: link("See every message") },
    { path: "/messages", heading: /^Messages$/, action: button("Search") },
    { path: `/messages/${ids.message}`, heading: /^Message to /, action: link("Back to the messages") },
    { path: "/send", heading: /^Send$/, action: button("Send SMS") },
    { path: "/send?channel=whatsapp", heading: /^Send$/, action: button("Send WhatsApp message") },
    { path: "/send?channel=email", heading: /^Send$/, action: button("Send email") },
    { path: "/send?channel=voice", heading: /^Send$/, action: button("Place call") },
    { path: "/bulk", heading: /^Bulk$/, action: button("Start bulk job…") },
    { path: `/bulk/${ids.job}`, heading: /^Bulk job /, action: link("Back to bulk") },
    { path: "/contacts", heading: /^Contacts$/, action: button("Create group") },
    { path: `/contacts/${ids.group}`, heading: /^Contact group /, action: button("Upload contacts") },
    { path: "/templates", heading: /^Templates$/, action: button("Register template") },
    { path: "/registrations", heading: /^Registrations$/, action: button("Ask for approval") },
    { path: "/inbound", heading: /^Inbound$/, action: button("Register keyword") },
    { path: "/refusals", heading: /^Refusals$/, action: button("Search") },
    { path: "/verify", heading: /^Verify$/, action: button("Show") },
    { path: "/credits", heading: /^Credits$/, action: button("Transfer") },
    { path: "/audit", heading: /^Audit log$/, action: button("Search") },
    { path: "/settings/webhooks", heading: /^Webhooks$/, action: button("Save URLs") },
    { path: "/settings/keys", heading: /^API keys$/, action: button("Create key") },
    { path: "/settings/smpp", heading: /^SMPP$/ },
    { path: "/settings/two-factor", heading: /^Two-factor sign-in$/, action: button("Set up two-factor sign-in") },
    { path: "/subaccounts", heading: /^Sub-accounts$/, action: button("Create sub-account") },
    { path: "/settings/users", heading: /^Users$/, action: button("Invite") },
    { path: "/settings/sessions", heading: /^Sessions$/, action: button("Change password") },
  ];
}

/** The operator's pages; `admin` false: its support staff, who read them (no Approve, no Import). */
function operatorStops(ids: { account: string; message: string; card: string }, admin: boolean): Stop[] {
  return [
    { path: "/operator/accounts", heading: /^Accounts$/, action: button("Search") },
    { path: `/operator/accounts/${ids.account}`, heading: /^Account /, action: button("View as this account") },
    { path: "/operator/approvals", heading: /^Approvals$/, ...(admin ? { action: button(/^Approve /) } : {}) },
    { path: "/operator/carriers", heading: /^Carriers$/ },
    { path: "/operator/carriers/simulator/error-codes", heading: /^Error codes of simulator$/ },
    { path: "/operator/refunds", heading: /^Carrier refunds$/ },
    { path: "/operator/refusals", heading: /^Refusals$/, action: button("Search") },
    { path: "/operator/dnd", heading: /^DND registry$/, action: button("Look up") },
    { path: "/operator/system", heading: /^System$/ },
    { path: "/operator/messages", heading: /^All messages$/, action: button("Search") },
    { path: `/operator/messages/${ids.message}`, heading: /^Message to /, action: link("Back to the messages") },
    { path: "/operator/views", heading: /^Account views$/ },
    { path: "/operator/audit", heading: /^Audit log$/, action: button("Verify the chain") },
    { path: "/operator/alerts", heading: /^Alerts$/, ...(admin ? { action: button("Save alert settings") } : {}) },
    { path: "/operator/analytics", heading: /^Delivery analytics$/, action: button("Show") },
    { path: "/operator/margin", heading: /^Margin$/, action: button("Show") },
    {
      path: "/operator/price-cards",
      heading: /^Price cards$/,
      ...(admin ? { action: button("Import the card") } : {}),
    },
    { path: `/operator/price-cards/${ids.card}`, heading: /^Price card /, action: link("Export CSV") },
    { path: "/operator/staff", heading: /^Staff$/, ...(admin ? { action: button("Invite") } : {}) },
  ];
}

/** The page's heading, and what it shows wrong at this width in words (one look: a single evaluate). */
const LAYOUT_PROBLEMS = `(() => {
  const width = document.documentElement.clientWidth;
  const problems = [];
  const scroll = document.scrollingElement.scrollWidth;
  if (scroll > width) problems.push("scrolls sideways: " + scroll + " px wide");
  const shown = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== "hidden"; };
  const h1 = document.querySelector("main h1");
  if (!h1 || !shown(h1) || h1.getBoundingClientRect().right > width) problems.push("heading not on the screen");
  for (const el of document.querySelectorAll("main input:not([type=hidden]), main select, main textarea")) {
    if (!shown(el)) continue;
    if (!el.labels?.length && !el.getAttribute("aria-label") && !el.getAttribute("aria-labelledby"))
      problems.push("field without a label: " + (el.id || el.name || el.type));
  }
  for (const el of document.querySelectorAll("main button, header button")) {
    if (!shown(el)) continue;
    const h = el.getBoundingClientRect().height;
    if (h < 32 || h > 100) problems.push("button " + Math.round(h) + " px tall: " + el.textContent.trim().slice(0, 50));
  }
  return { heading: h1?.textContent ?? "", problems };
})()`;

interface Look {
  heading: string;
  problems: string[];
}

describeInBrowser("console in the browser: every page at 390 px, for each kind of user", () => {
  const { gateway, operator, page: openPage } = useConsole();
  let reseller: TestAccount;
  let ids: { message: string; job: string; group: string; account: string; card: string };
  let subIds: { message: string; job: string; group: string };

  const v2 = (key: string, method: string, path: string, json?: unknown) =>
    call(gateway(), method, path, { headers: { authorization: `Bearer ${key}` }, json });

  /** A failed SMS with an unbroken text, a bulk job and a long-named group of contacts, as `key`'s account. */
  async function traffic(key: string, group: string) {
    const sent = await v2(key, "POST", "/api/v2/sms/send", {
      sender_id: "SWBRD",
      recipient: "9876500002",
      message: `Promo ${UNBROKEN}`,
    });
    expect(sent.status, sent.text).toBe(200);
    const job = await v2(key, "POST", "/api/v2/sms/bulk", {
      sender_id: "SWBRD",
      message: "Diwali sale: 20% off everything until Sunday.",
      recipients: ["9876543210", "9876500001", "12345"],
    });
    expect(job.status, job.text).toBeLessThan(300);
    const made = await v2(key, "POST", "/api/v2/groups", { name: group, description: UNBROKEN });
    expect(made.status, made.text).toBe(201);
    const contacts = Array.from({ length: 60 }, (_, i) => ({
      number: `98100${String(i).padStart(5, "0")}`,
      name: `C ${i}`,
    }));
    const added = await v2(key, "POST", `/api/v2/groups/${made.body.data.id}/contacts`, contacts);
    expect(added.status, added.text).toBeLessThan(300);
    return {
      message: sent.body.data.message_id as string,
      job: String(job.body.data.job_id),
      group: String(made.body.data.id),
    };
  }

  beforeAll(async () => {
    const t = gateway();
    reseller = await buildAccount(t, { credits: { sms: 5000 } });
    const traffic1 = await traffic(reseller.apiKey, LONG_GROUP);
    const admin = await v2(reseller.apiKey, "POST", "/api/v2/users", {
      login: "ada",
      user_role: "admin",
      password: PASSWORD,
    });
    expect(admin.status, admin.text).toBe(201);
    const template = await v2(reseller.apiKey, "POST", "/api/v2/templates", {
      name: `order ${UNBROKEN}`,
      content: "Your order {#var#} has shipped.",
      dlt_template_id: "1107160000000000077",
    });
    expect(template.status, template.text).toBe(201);
    const sub = await v2(reseller.apiKey, "POST", "/api/v2/subaccounts", { username: LONG_SUB, password: PASSWORD });
    expect(sub.status, sub.text).toBe(201);
    const funded = await v2(reseller.apiKey, "POST", `/api/v2/subaccounts/${LONG_SUB}/credits`, {
      wallet: "sms",
      amount: 100,
    });
    expect(funded.status, funded.text).toBe(200);
    const subKey = await v2(reseller.apiKey, "POST", `/api/v2/subaccounts/${LONG_SUB}/keys`, {});
    expect(subKey.status, subKey.text).toBe(201);
    const { id: subId } = await t.db.store.db
      .selectFrom("accounts")
      .select("id")
      .where("username", "=", LONG_SUB)
      .executeTakeFirstOrThrow();
    await t.db.store.db.updateTable("accounts").set({ dlt_scrubbing: 0 }).where("id", "=", subId).execute();
    await addSenderId(t.db.store.db, t.clock, subId, "SWBRD", { approve: true });
    subIds = await traffic(subKey.body.data.api_key, `Sub ${LONG_GROUP}`.slice(0, 100));
    const staff = await v2(operator().apiKey, "POST", "/admin/api/staff", {
      login: "olga",
      user_role: "operator_support",
      password: PASSWORD,
    });
    expect(staff.status, staff.text).toBe(201);
    const rows = Array.from({ length: 300 }, (_, i) => `sms,*,${91000 + i},${(0.1 + i / 1000).toFixed(3)}`);
    await replacePriceCard(
      t.db.store,
      t.clock,
      "india-retail",
      parsePriceCsv(["channel,route,prefix,price", ...rows].join("\n")),
    );
    ids = { ...traffic1, account: reseller.username, card: "india-retail" };
    // WhatsApp (the simulator) and an email domain, so that those send forms show (not why they cannot).
    for (const username of [reseller.username, LONG_SUB]) {
      const whatsapp = await v2(operator().apiKey, "PUT", `/admin/api/accounts/${username}/whatsapp`, {
        enabled: true,
        connector: "simulator",
      });
      expect(whatsapp.status, whatsapp.text).toBe(200);
      const domain = await v2(operator().apiKey, "POST", `/admin/api/accounts/${username}/email/domains`, {
        domain: `${username.replace(/[^a-z0-9]+/g, "-").slice(0, 20)}.example.com`,
        approve: true,
      });
      expect(domain.status, domain.text).toBeLessThan(300);
    }
  });

  /** Signs in at 390 px (with `login` for a team or staff user) and visits every stop in that one context. */
  async function tour(who: { username: string; password?: string; login?: string }, stops: Stop[]) {
    const { page, context, problems } = await openPage(PHONE);
    await page.goto("/");
    await page.getByLabel("Username").fill(who.username);
    if (who.login) await page.getByLabel("Your login").fill(who.login);
    await page.getByLabel("Password").fill(who.password ?? PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    const found: string[] = [];
    for (const stop of stops) {
      await visit(page, stop.path);
      const { heading, problems: layout } = (await page.evaluate(LAYOUT_PROBLEMS)) as Look;
      if (!stop.heading.test(heading)) found.push(`${stop.path}: heading "${heading}"`);
      for (const problem of layout) found.push(`${stop.path}: ${problem}`);
      if (stop.action) {
        // Shown once the page has loaded (visit waited for it): a short wait, then it is missing.
        const box = await stop
          .action(page)
          .first()
          .boundingBox({ timeout: 2_000 })
          .catch(() => null);
        if (!box || box.x < 0 || box.x + box.width > PHONE.width)
          found.push(`${stop.path}: primary action not on the screen`);
      }
    }
    return { page, context, problems, found };
  }

  it("the operator's admin and its support staff: every operator page", { timeout: 120_000 }, async () => {
    const op = operator();
    for (const [who, admin] of [
      [{ username: op.username, password: op.password }, true],
      [{ username: op.username, login: "olga" }, false],
    ] as const) {
      const { context, problems, found } = await tour(who, operatorStops(ids, admin));
      expect(found, `${"login" in who ? who.login : "operator admin"}`).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    }
  });

  it("a reseller's owner and an admin user of its account: every account page", { timeout: 120_000 }, async () => {
    for (const who of [
      { username: reseller.username, password: reseller.password },
      { username: reseller.username, login: "ada" },
    ]) {
      const { page, context, problems, found } = await tour(who, accountStops(ids));
      expect(found, "login" in who ? "admin user" : "owner").toEqual([]);
      if (!("login" in who)) {
        // A refused save's message names a long setting: it wraps inside its notice.
        await visit(page, "/settings/webhooks");
        await page.getByLabel("Inbound SMS URL").fill("http://hooks.example.com/inbound");
        await page.getByRole("button", { name: "Save URLs" }).click();
        await page.getByRole("alert").filter({ hasText: "Not saved" }).waitFor();
        expect(((await page.evaluate(LAYOUT_PROBLEMS)) as Look).problems).toEqual([]);
      }
      expect(problems).toEqual([]);
      await context.close();
    }
  });

  it("a sub-account: every account page", { timeout: 60_000 }, async () => {
    const { context, problems, found } = await tour({ username: LONG_SUB }, accountStops(subIds));
    expect(found).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
