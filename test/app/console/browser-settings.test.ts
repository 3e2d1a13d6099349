// The console's settings pages in a real browser: an API key created (shown once, and it
// works) and revoked (and it stops working); a key limited to scopes and addresses, shown with
// them and refused outside them, at phone width; a webhook URL set, a test event delivered to a
// local receiver and replayed from the delivery log. axe on both pages.
import { beforeAll, expect, it } from "vitest";
import { receiver, useReceivers } from "../../domain/webhooks/receiver.js";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  newPage,
  openSignedIn,
  useBrowser,
} from "../../helpers/browser.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";

describeInBrowser("console in the browser: keys and webhooks", () => {
  const gateway = useTestGateway("sqlite", { env: { SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1" } });
  const browser = useBrowser();
  useReceivers();
  let account: TestAccount;

  beforeAll(async () => {
    account = await buildAccount(gateway());
  });

  it("creates an API key shown once, which works, and revokes it", async () => {
    const { page, context, problems } = await newPage(browser(), gateway().url);
    await openSignedIn(page, account.username, account.password);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "API keys" }).click();
    await page.getByRole("heading", { name: "API keys" }).waitFor();
    await page.getByLabel("Name of the new key").fill("console test");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = (await page.getByTestId("new-key").textContent()) ?? "";
    expect(key).toMatch(/^sb_[\w-]{43}$/);
    await expectAccessible(page, "keys page");
    const auth = { authorization: `Bearer ${key}` };
    expect((await call(gateway(), "GET", "/api/v2/balance", { headers: auth })).status).toBe(200);

    const row = page.getByTestId(`key-${key.slice(0, 10)}`);
    await row.getByRole("button", { name: /^Revoke/ }).click();
    await row.getByRole("button", { name: /^Confirm: revoke/ }).click();
    await expect.poll(() => row.textContent()).toContain("revoked");
    expect((await call(gateway(), "GET", "/api/v2/balance", { headers: auth })).status).toBe(401);
    // Reloaded, the key is never shown again.
    await page.reload();
    await page.getByRole("heading", { name: "API keys" }).waitFor();
    expect(await page.content()).not.toContain(key);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it("creates a key limited to scopes and addresses at phone width, lists them, and the key is held to them", async () => {
    const { page, context, problems } = await newPage(browser(), gateway().url, { width: 390, height: 844 });
    await openSignedIn(page, account.username, account.password, "/settings/keys");
    await page.getByRole("heading", { name: "API keys" }).waitFor();
    await page.getByLabel("Name of the new key").fill("reports only");
    await page.getByLabel(/^Send:/).uncheck();
    await page.getByLabel(/^Manage:/).uncheck();
    await page.getByLabel(/^Billing:/).uncheck();
    await page.getByLabel("Allowed addresses").fill("127.0.0.1, 2001:db8::/32");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = (await page.getByTestId("new-key").textContent()) ?? "";
    expect(key).toMatch(/^sb_[\w-]{43}$/);
    const row = page.getByTestId(`key-${key.slice(0, 10)}`);
    await expect.poll(() => row.getByTestId("key-scopes").textContent()).toBe("read");
    expect(await row.getByTestId("key-allowed-ips").textContent()).toBe("127.0.0.1, 2001:db8::/32");
    // Who made it: the owner login, whose role the key acts with (decision 0140).
    expect(await row.getByTestId("key-created-by").textContent()).toBe(account.username);
    // The account's first key keeps every scope and any address, and acts as the owner.
    const first = page.locator("tbody tr").first();
    expect(await first.getByTestId("key-scopes").textContent()).toBe("send, read, manage, billing");
    expect(await first.getByTestId("key-allowed-ips").textContent()).toBe("any");
    expect(await first.getByTestId("key-created-by").textContent()).toBe("not recorded");
    await expectNoHorizontalScroll(page, "keys page at 390 px");
    await expectAccessible(page, "keys page with scopes");

    const auth = { authorization: `Bearer ${key}` };
    expect((await call(gateway(), "GET", "/api/v2/messages", { headers: auth })).status).toBe(200);
    const refused = await call(gateway(), "GET", "/api/v2/balance", { headers: auth });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("insufficient_scope");

    // A bad address is the server's refusal, shown on the form; no key is made.
    await page.getByLabel("Allowed addresses").fill("10.0.0.0/40");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByText(/is not an IP address or CIDR range/).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it("sets a webhook URL, sends a test event and replays it from the delivery log", async () => {
    const hooks = await receiver();
    const { page, context, problems } = await newPage(browser(), gateway().url);
    await openSignedIn(page, account.username, account.password, "/settings/webhooks");
    await page.getByRole("heading", { name: "Webhooks" }).waitFor();
    await page.getByLabel("Delivery report URL").fill(hooks.url);
    await page.getByRole("button", { name: "Save URLs" }).click();
    await expect.poll(() => page.getByTestId("webhook-secret").textContent()).toMatch(/^whsec_/);
    await page.getByRole("button", { name: "Send a test event" }).click();
    await page.getByText(/Test event queued as delivery #\d+/).waitFor();
    const first = page.getByTestId("delivery").first();
    await expect
      .poll(() => first.textContent(), { timeout: 20_000 })
      .toMatch(/delivered.*Attempt 1, [^,]+, \d\d:\d\d:\d\d, to http:\/\/127\.0\.0\.1:\d+\/\S*: 200 in \d+ ms/s);
    expect(hooks.received.length).toBe(1);
    expect(hooks.received[0]!.headers["webhook-id"]).toMatch(/^msg_test_/);
    await expectAccessible(page, "webhooks page");

    await first.getByRole("button", { name: /^Redeliver/ }).click();
    const outcome = page.getByText(/Queued again as delivery #\d+/).or(page.getByRole("alert"));
    await outcome.first().waitFor();
    expect(await outcome.first().textContent()).toMatch(/Queued again as delivery #\d+/);
    await expect.poll(() => hooks.received.length, { timeout: 20_000 }).toBe(2);
    await expect
      .poll(() => page.getByTestId("delivery").first().textContent(), { timeout: 20_000 })
      .toMatch(/redelivery of #\d+.*delivered/s);
    expect(hooks.received[1]!.body).toBe(hooks.received[0]!.body);
    expect(hooks.received[1]!.headers["webhook-id"]).not.toBe(hooks.received[0]!.headers["webhook-id"]);
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);
});
