// Issue 42's whole flow in a real browser at phone width (390 px): an owner invites a support
// user on the Users page and sends the invitation again (the first link dies, the new one is
// mailed); the support user follows the link and sets a password, enrols two-factor (the code
// computed here with otplib from the secret the page shows), signs out and signs in with both
// factors, reads messages, has no Send page and is refused a send, and changes their own
// password on the Sessions page. Then the owner narrows a key on the API keys page, and the key
// is refused at its next request. The gateway's clock is a manual one, each code a step later.
import { simpleParser } from "mailparser";
import { generateSync } from "otplib";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { BOUNCE_DOMAIN, FakeRelay } from "../../channels/email/helpers.js";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  newPage,
  PHONE,
  signInAs,
  useBrowser,
} from "../../helpers/browser.js";
import { buildAccount, call, startTestGateway, type TestAccount, type TestGateway } from "../../helpers/gateway.js";

describeInBrowser("console in the browser: a team's support user, from invitation to two factors, at 390 px", () => {
  const clock = new ManualClock("2026-11-29T06:30:05Z");
  const relay = new FakeRelay();
  const browser = useBrowser();
  let t: TestGateway;
  let owner: TestAccount;
  let invitationUrl: string;

  beforeAll(async () => {
    await relay.start();
    t = await startTestGateway("sqlite", {
      clock,
      env: { SMTP_URL: relay.url, SMTP_TLS_INSECURE: "1", EMAIL_BOUNCE_DOMAIN: BOUNCE_DOMAIN },
    });
    owner = await buildAccount(t);
  });
  afterAll(async () => {
    await t?.gateway.stop();
    await t?.db.drop();
    await relay.stop();
  });

  /** The code an authenticator app shows now, by otplib, for the gateway's clock. */
  const codeNow = (secret: string) => generateSync({ secret, epoch: Math.floor(clock.now().getTime() / 1000) });
  const tokenOf = (url: string) => new URL(url).searchParams.get("token") ?? "";

  it("the owner invites a support user, then sends the invitation again: the first link stops working", async () => {
    const { page, context, problems } = await newPage(browser(), t.url, PHONE);
    await signInAs(page, owner.username, owner.password, "/settings/users");
    await page.getByRole("heading", { name: "Users" }).waitFor();
    await page.getByLabel("Login").fill("sam");
    await page.getByLabel("Role", { exact: true }).selectOption("support");
    await page.getByLabel("Email").fill("sam@example.org");
    await page.getByRole("button", { name: "Invite" }).click();
    const link = page.getByTestId("invitation").locator("code");
    await expect.poll(async () => (await link.textContent()) ?? "").toMatch(/\/invitation\?token=[\w-]{43}$/);
    const first = (await link.textContent()) ?? "";
    await expect.poll(() => relay.received.length).toBe(1);

    await page.getByRole("button", { name: "Send a new invitation to sam" }).click();
    await expect.poll(async () => (await link.textContent()) ?? first).not.toBe(first);
    invitationUrl = (await link.textContent()) ?? "";
    expect(invitationUrl).toMatch(/\/invitation\?token=[\w-]{43}$/);
    await expect.poll(() => relay.received.length).toBe(2);
    const mail = await simpleParser(relay.received.at(-1)!.raw);
    expect(mail.text).toContain(invitationUrl);
    expect((await page.request.get(`/console/invitation?token=${tokenOf(first)}`)).status()).toBe(404);
    await expect.poll(() => page.getByTestId("user-sam").textContent()).toContain("invited");
    await expectNoHorizontalScroll(page, "users page with a new invitation");
    await expectAccessible(page, "users page with a new invitation");
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);

  it("the support user sets a password by the link, enrols two-factor, signs in with both, reads but cannot send", async () => {
    const { page, context, problems } = await newPage(browser(), t.url, PHONE);
    const link = new URL(invitationUrl);
    await page.goto(link.pathname + link.search);
    await page.getByText(`You are invited to the account ${owner.username} as sam (support)`).waitFor();
    await page.getByLabel("New password").fill("sam-password-1");
    await page.getByRole("button", { name: "Set password and sign in" }).click();
    await page.getByRole("button", { name: "Sign out" }).waitFor();

    // Two-factor: the secret as the page shows it, the code as an authenticator app computes it.
    await page.goto("/settings/two-factor");
    await page.getByRole("heading", { name: "Two-factor sign-in" }).waitFor();
    await page.getByRole("button", { name: "Set up two-factor sign-in" }).click();
    await page.getByRole("button", { name: "Can't scan? Show the secret" }).click();
    const secret = ((await page.getByTestId("totp-secret").textContent()) ?? "").replace(/\s/g, "");
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await page.getByLabel("Code from the app").fill(codeNow(secret));
    await page.getByRole("button", { name: "Turn on two-factor sign-in" }).click();
    await expect.poll(() => page.getByTestId("recovery-codes").getByRole("listitem").count()).toBe(10);
    await expectNoHorizontalScroll(page, "two-factor page of a support user");

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Username").waitFor();
    clock.advance(30_000);
    await page.getByLabel("Username").fill(owner.username);
    await page.getByLabel("Your login").fill("sam");
    await page.getByLabel("Password").fill("sam-password-1");
    await page.getByRole("button", { name: "Sign in" }).click();
    const code = page.getByLabel("Code", { exact: true });
    await code.waitFor();
    await code.fill(codeNow(secret));
    await page.getByRole("button", { name: "Verify" }).click();
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    expect(await page.locator(".who").textContent()).toContain(`sam @ ${owner.username}`);

    // Support reads messages; there is no Send page, and the API refuses a send.
    await page.getByRole("button", { name: "Menu" }).click();
    const nav = page.getByRole("navigation", { name: "Main" });
    expect(await nav.getByRole("link", { name: "Send", exact: true }).count()).toBe(0);
    await nav.getByRole("link", { name: "Messages", exact: true }).click();
    await page.getByRole("heading", { name: "Messages" }).waitFor();
    expect(await page.getByRole("alert").count()).toBe(0);
    await expectNoHorizontalScroll(page, "messages page of a support user");
    await page.goto("/send");
    await page.getByRole("heading", { name: "Not for your role" }).waitFor();
    const { csrf_token } = (await (await page.request.get("/console/session")).json()).data;
    const sent = await page.request.post("/api/v2/sms/send", {
      headers: { "x-csrf-token": csrf_token },
      data: { sender_id: "SWBRD", recipient: "9876543210", message: "Support tries to send" },
    });
    expect(sent.status()).toBe(403);
    expect((await sent.json()).error.code).toBe("insufficient_role");
    const read = await page.request.get("/api/v2/messages");
    expect(read.status()).toBe(200);

    // Their own password, on the Sessions page: the current one first.
    await page.goto("/settings/sessions");
    await page.getByRole("heading", { name: "Your password" }).waitFor();
    await page.getByLabel("Current password").fill("not-my-password");
    await page.getByLabel("New password", { exact: true }).fill("sam-password-2");
    await page.getByLabel("New password again").fill("sam-password-2");
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByRole("alert").getByText("The current password is wrong.").waitFor();
    await page.getByLabel("Current password").fill("sam-password-1");
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByText(/Password changed\./).waitFor();
    await expectNoHorizontalScroll(page, "sessions page with the password form");
    await expectAccessible(page, "sessions page with the password form");
    // Still signed in here; the new password is the one that signs in.
    expect((await page.request.get("/api/v2/sessions")).status()).toBe(200);
    const signIn = await call(t, "POST", "/console/session", {
      json: { username: owner.username, login: "sam", password: "sam-password-2" },
    });
    expect(signIn.body.data).toMatchObject({ second_step: "totp" });
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it("the owner narrows a key on the API keys page: refused at its next request", async () => {
    const { page, context, problems } = await newPage(browser(), t.url, PHONE);
    await signInAs(page, owner.username, owner.password, "/settings/keys");
    await page.getByRole("heading", { name: "API keys" }).waitFor();
    await page.getByLabel("Name of the new key").fill("reports");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = ((await page.getByTestId("new-key").textContent()) ?? "").trim();
    expect(key).toMatch(/^sb_/);
    const balance = () => page.request.get("/api/v2/balance", { headers: { authorization: `Bearer ${key}` } });
    expect((await balance()).status()).toBe(200);

    const prefix = key.slice(0, 10);
    await page.getByRole("button", { name: `Change ${prefix}…` }).click();
    const form = page.getByRole("form", { name: `Change key ${prefix}…` });
    await form.waitFor();
    await form.getByLabel(/^Billing/).uncheck();
    await form.getByLabel(/^Send/).uncheck();
    await form.getByLabel("Allowed addresses of the key").fill("10.0.0.0/33");
    await form.getByRole("button", { name: "Save key" }).click();
    await form.getByRole("alert").getByText("invalid_request").waitFor();
    await form.getByLabel("Allowed addresses of the key").fill("");
    await form.getByRole("button", { name: "Save key" }).click();
    await page.getByText(`Key ${prefix}… changed: it may read, manage, from any address.`).waitFor();
    await expect
      .poll(() => page.getByTestId(`key-${prefix}`).getByTestId("key-scopes").textContent())
      .toBe("read, manage");
    await expectNoHorizontalScroll(page, "keys page after a change");
    await expectAccessible(page, "keys page after a change");

    const refused = await balance();
    expect(refused.status()).toBe(403);
    expect((await refused.json()).error.code).toBe("insufficient_scope");
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);
});
