// The console in a real browser, for users and roles (issue 42, items 1 and 5): the owner invites
// a support user on the Users page (the link shown once, and mailed through the gateway's relay);
// the invited user opens the link on a 390 px phone, sets a password, is signed in, sees no Send
// page and is refused a send; the Sessions page lists their sessions and ends the others; the
// operator adds staff on the Staff page. Each page passes axe and does not scroll sideways.
import { simpleParser } from "mailparser";
import type { Locator } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { BOUNCE_DOMAIN, FakeRelay } from "../../channels/email/helpers.js";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  signInAs,
  useConsole,
  visit,
} from "../../helpers/browser.js";
import { buildAccount, call, type TestAccount } from "../../helpers/gateway.js";

const DESKTOP = { width: 1280, height: 900 };
const SHOTS = process.env.SWITCHBOARD_SHOTS_DIR;

/**
 * The names shown before a card's values at phone width, each where it can be seen: in the room the
 * card leaves before its value (a second card style on these tables had put them past the screen's
 * left edge).
 */
async function namesOnCard(row: Locator): Promise<string[]> {
  return row.locator("td").evaluateAll((tds) =>
    tds.map((td) => {
      const view = td.ownerDocument.defaultView;
      const name = view?.getComputedStyle(td, "::before");
      const room =
        Number.parseFloat(view?.getComputedStyle(td).paddingLeft ?? "0") + Number.parseFloat(name?.marginLeft ?? "0");
      return room >= 0 && name?.content.startsWith('"') ? JSON.parse(name.content) : `hidden: ${name?.content}`;
    }),
  );
}

describeInBrowser("console in the browser: users, invitations, sessions, staff", () => {
  const relay = new FakeRelay();
  beforeAll(() => relay.start());
  afterAll(() => relay.stop());
  // The gateway mails through the relay, whose URL is known once it has started.
  const {
    gateway,
    operator,
    phonePage,
    page: newPage,
  } = useConsole(() => ({
    env: { SMTP_URL: relay.url, SMTP_TLS_INSECURE: "1", EMAIL_BOUNCE_DOMAIN: BOUNCE_DOMAIN },
  }));
  let owner: TestAccount;
  let invitationUrl: string;

  beforeAll(async () => {
    owner = await buildAccount(gateway());
  });

  it("the owner invites a support user on the Users page: the link shown once and emailed", async () => {
    const { page, context, problems } = await newPage(DESKTOP);
    await signInAs(page, owner.username, owner.password);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Users" }).click();
    await page.getByRole("heading", { name: "Users" }).waitFor();
    await page.getByLabel("Login").fill("sue");
    await page.getByLabel("Role", { exact: true }).selectOption("support");
    await page.getByLabel("Email").fill("sue@example.org");
    await page.getByRole("button", { name: "Invite" }).click();
    const notice = page.getByTestId("invitation");
    await expect.poll(() => notice.textContent()).toMatch(/Invitation emailed to sue at sue@example.org/);
    const shown = (await notice.locator("code").textContent()) ?? "";
    expect(shown).toMatch(/\/invitation\?token=[\w-]{43}$/);
    await expect.poll(() => page.getByTestId("user-sue").textContent()).toContain("invited");
    await expectAccessible(page, "users page");

    await expect.poll(() => relay.received.length).toBeGreaterThan(0);
    const mail = await simpleParser(relay.received.at(-1)!.raw);
    expect(mail.text).toContain(shown);
    invitationUrl = shown;
    expect(problems).toEqual([]);
    await context.close();
  });

  it("the invited user accepts on a phone, is signed in as support, and cannot send", async () => {
    const { page, context, problems } = await newPage();
    await page.goto(new URL(invitationUrl).pathname + new URL(invitationUrl).search);
    await page.getByText(`You are invited to the account ${owner.username} as sue (support)`).waitFor();
    await expectAccessible(page, "invitation page");
    await expectNoHorizontalScroll(page, "invitation page");
    await page.getByLabel("New password").fill("sue-password-1");
    await page.getByRole("button", { name: "Set password and sign in" }).click();
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    expect(await page.locator(".who").textContent()).toContain(`sue @ ${owner.username}`);
    await page.getByRole("button", { name: "Menu" }).click();
    const nav = page.getByRole("navigation", { name: "Main" });
    await nav.getByRole("link", { name: "Messages" }).waitFor();
    expect(await nav.getByRole("link", { name: "Send", exact: true }).count()).toBe(0);
    expect(await nav.getByRole("link", { name: "Credits" }).count()).toBe(0);
    expect(await nav.getByRole("link", { name: "API keys" }).count()).toBe(0);

    // The page by its URL says the role cannot use it; the API refuses the send itself.
    await page.goto("/send");
    await page.getByRole("heading", { name: "Not for your role" }).waitFor();
    const alert = page.getByRole("alert");
    expect(await alert.locator(".error-code").textContent()).toBe("insufficient_role");
    await expectNoHorizontalScroll(page, "send page refused");
    const { csrf_token } = (await (await page.request.get("/console/session")).json()).data;
    const sent = await page.request.post("/api/v2/sms/send", {
      headers: { "x-csrf-token": csrf_token },
      data: { sender_id: "SWBRD", recipient: "9876543210", message: "A support user tries to send" },
    });
    expect(sent.status()).toBe(403);
    expect((await sent.json()).error.code).toBe("insufficient_role");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("the Sessions page lists the user's sessions and ends the others", async () => {
    const other = await newPage(DESKTOP);
    await other.page.goto("/");
    await other.page.getByLabel("Username").fill(owner.username);
    await other.page.getByLabel("Your login").fill("sue");
    await other.page.getByLabel("Password").fill("sue-password-1");
    await other.page.getByRole("button", { name: "Sign in" }).click();
    await other.page.getByRole("button", { name: "Sign out" }).waitFor();

    const { page, context, problems } = await newPage();
    await page.goto("/");
    await page.getByLabel("Username").fill(owner.username);
    await page.getByLabel("Your login").fill("sue");
    await page.getByLabel("Password").fill("sue-password-1");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    await page.goto("/settings/sessions");
    await page.getByRole("heading", { name: "Sessions" }).waitFor();
    await expect.poll(() => page.locator("tbody tr").count()).toBeGreaterThanOrEqual(2);
    expect(await page.getByText("This session").count()).toBe(1);
    await expectAccessible(page, "sessions page");
    await expectNoHorizontalScroll(page, "sessions page");
    await page.getByRole("button", { name: "End every other session" }).click();
    await page.getByText(/sessions? ended/).waitFor();
    await expect.poll(() => page.locator("tbody tr").count()).toBe(1);

    // The other browser's session is gone.
    const balance = await other.page.request.get("/api/v2/balance");
    expect(balance.status()).toBe(401);
    expect(problems).toEqual([]);
    await other.context.close();
    await context.close();
  });

  it("names each value of a user's card at 390 px, as every other card list of the console does", async () => {
    const added = await call(gateway(), "POST", "/api/v2/users", {
      headers: { authorization: `Bearer ${owner.apiKey}` },
      json: { login: "una", user_role: "developer", email: "una@example.org", password: "una-password-1" },
    });
    expect(added.status).toBe(201);
    const { page, context, problems } = await phonePage(owner, "/settings/users");
    const card = page.getByTestId("user-una");
    await card.waitFor();
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/users-390.png`, fullPage: true });
    expect(await namesOnCard(card)).toEqual(["Login", "Email", "Role", "State", "Actions"]);
    await expectNoHorizontalScroll(page, "users page at 390 px");
    await visit(page, "/settings/sessions");
    const session = page.locator("tbody tr").first();
    expect(await namesOnCard(session)).toEqual(["Device", "Address", "Last used", "Signed in", "End"]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("the operator adds staff on the Staff page; the staff member signs in with their role", async () => {
    const { page, context, problems } = await phonePage(operator(), "/operator/staff");
    await page.getByRole("heading", { name: "Staff" }).waitFor();
    await page.getByLabel("Login").fill("olga");
    await page.getByLabel("Role", { exact: true }).selectOption("operator_support");
    await page.getByLabel("Password").fill("olga-password-1");
    await page.getByRole("button", { name: "Add" }).click();
    await expect.poll(() => page.getByTestId("user-olga").textContent()).toContain("active");
    await expectAccessible(page, "staff page");
    await expectNoHorizontalScroll(page, "staff page");
    expect(problems).toEqual([]);
    await context.close();

    const signedIn = await call(gateway(), "POST", "/console/session", {
      json: { username: operator().username, login: "olga", password: "olga-password-1" },
    });
    expect(signedIn.body.data).toMatchObject({ role: "operator", user_role: "operator_support" });
  });
});
