// The console in a real browser, as an account holder: sign-in (and a refused one), the
// overview, sending an SMS and watching it become delivered on its page, another account's
// message URL, a forged cross-site POST, sign-out, the 360 px layout and the axe check on
// every page. One gateway and one browser for the file.
import { mkdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  newPage,
  sendersListed,
  signInAs,
  useBrowser,
  visit,
} from "../../helpers/browser.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";

/** SWITCHBOARD_SCREENSHOTS=1 writes the README's screenshots (docs/screenshots) from this run. */
const SCREENSHOTS = process.env.SWITCHBOARD_SCREENSHOTS === "1" ? "docs/screenshots" : undefined;

describeInBrowser("console in the browser: account holder", () => {
  const gateway = useTestGateway("sqlite", { env: { SIMULATOR_LATENCY_MS: "200", SIMULATOR_FAILURE_RATE: "0" } });
  const browser = useBrowser();
  let alice: TestAccount;
  let bob: TestAccount;
  let aliceMessage: string;

  beforeAll(async () => {
    const t = gateway();
    alice = await buildAccount(t, { credits: { sms: 500, whatsapp: 20 } });
    bob = await buildAccount(t, { credits: { sms: 10 } });
    const sent = await call(t, "POST", "/api/v2/sms/send", {
      headers: { authorization: `Bearer ${alice.apiKey}` },
      json: { sender_id: "SWBRD", recipient: "9876500001", message: "A message that fails: UNDELIV" },
    });
    expect(sent.status, sent.text).toBe(200);
    aliceMessage = sent.body.data.message_id;
  });

  it("refuses a wrong password in words, with the API's code, and signs nobody in", async () => {
    const { page, context, problems } = await newPage(browser(), gateway().url);
    await page.goto("/");
    await expectAccessible(page, "sign-in page");
    await page.getByLabel("Username").fill(alice.username);
    await page.getByLabel("Password").fill("not-the-password");
    await page.getByRole("button", { name: "Sign in" }).click();
    const alert = page.getByRole("alert");
    await expect.poll(() => alert.textContent()).toMatch(/Sign-in refused/);
    expect(await alert.locator(".error-code").textContent()).toBe("unauthorized");
    await expectAccessible(page, "sign-in page with an error");
    expect((await context.cookies()).filter((c) => c.name === "sb_session")).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("signs in, shows every wallet and the traffic, and sends an SMS that becomes delivered", async () => {
    const { page, context, problems } = await newPage(browser(), gateway().url);
    await signInAs(page, alice.username, alice.password);
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    await expect.poll(() => page.getByTestId("wallet-sms").textContent()).toContain("499");
    expect(await page.getByTestId("wallet-whatsapp").textContent()).toContain("20");
    await expect.poll(() => page.getByTestId("traffic-sms").textContent()).toMatch(/^SMS1\d1\d/);
    await page.getByText(/messages? in the last 24 hours/).waitFor();
    await expectAccessible(page, "overview");
    if (SCREENSHOTS) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: `${SCREENSHOTS}/overview.png`, fullPage: true });
    }

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Send" }).click();
    await page.getByRole("heading", { name: "Send" }).waitFor();
    await page.getByLabel("To", { exact: true }).fill("9876543210");
    await page.getByLabel("Message").fill("Hello from the console");
    expect(await page.getByTestId("counter-characters").textContent()).toBe("22 characters");
    expect(await page.getByTestId("counter-encoding").textContent()).toBe("GSM-7");
    await page.getByLabel("Message").fill("Привет from the console");
    expect(await page.getByTestId("counter-encoding").textContent()).toBe("UCS-2 (Unicode)");
    await page.getByLabel("Message").fill("x".repeat(161));
    expect(await page.getByTestId("counter-segments").textContent()).toBe("2 segments");
    await page.getByLabel("Message").fill("Hello from the console");
    await expectAccessible(page, "send page");
    await sendersListed(page);
    await page.getByRole("button", { name: "Send SMS" }).click();
    await page.getByTestId("sent-link").click();

    await page.getByRole("heading", { name: "Message to 9876543210" }).waitFor();
    await expect.poll(() => page.getByTestId("message-status").textContent(), { timeout: 20_000 }).toBe("delivered");
    const timeline = page.getByTestId("timeline");
    await expect.poll(() => timeline.textContent()).toMatch(/accepted.*submitted.*delivered/s);
    expect(await page.getByTestId("carrier-id").textContent()).toMatch(/\S/);
    expect(await page.getByTestId("message-cost").textContent()).toContain("1 credit from the SMS wallet");
    await expectAccessible(page, "message page");
    if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/message-timeline.png`, fullPage: true });

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Messages" }).click();
    await page.getByRole("heading", { name: "Messages" }).waitFor();
    await expect.poll(() => page.locator("table.messages tbody tr").count()).toBe(2);
    await page.getByLabel("Search").fill("9876500001");
    await page.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => page.locator("table.messages tbody tr").count()).toBe(1);
    expect(await page.locator("table.messages tbody").textContent()).toContain("UNDELIV");
    await expectAccessible(page, "messages page");
    // The failed message says why its credit was kept.
    await page.locator("table.messages tbody tr").getByRole("link").first().click();
    await page.getByRole("heading", { name: "Message to 9876500001" }).waitFor();
    await expect
      .poll(() => page.getByTestId("message-cost").textContent(), { timeout: 20_000 })
      .toBe("1 credit from the SMS wallet (not refunded: its carrier took it before it failed)");
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it("works at 360 px wide", async () => {
    const { page, context } = await newPage(browser(), gateway().url, { width: 360, height: 740 });
    await signInAs(page, alice.username, alice.password);
    for (const path of ["/", "/messages", "/send", `/messages/${aliceMessage}`]) {
      await visit(page, path);
      await expectNoHorizontalScroll(page, path);
    }
    await context.close();
  }, 60_000);

  it("answers another account's message URL with not found", async () => {
    const { page, context } = await newPage(browser(), gateway().url);
    await signInAs(page, bob.username, bob.password, `/messages/${aliceMessage}`);
    const alert = page.getByRole("alert");
    await expect.poll(() => alert.textContent()).toContain(`No message with id "${aliceMessage}" in this account.`);
    expect(await alert.locator(".error-code").textContent()).toBe("not_found");
    expect(await page.content()).not.toContain("UNDELIV");
    await expectAccessible(page, "not-found message page");
    await context.close();
  });

  describeCrossSite();

  it("signs out: the old cookie opens nothing any more", async () => {
    const { page, context } = await newPage(browser(), gateway().url);
    await signInAs(page, alice.username, alice.password);
    const cookie = (await context.cookies()).find((c) => c.name === "sb_session");
    expect(cookie?.httpOnly).toBe(true);
    expect(cookie?.sameSite).toBe("Strict");
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    expect(await page.getByRole("status").textContent()).toContain("signed out");
    const after = await call(gateway(), "GET", "/api/v2/balance", {
      headers: { cookie: `sb_session=${cookie?.value}` },
    });
    expect(after.status).toBe(401);
    await page.reload();
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    await context.close();
  });

  function describeCrossSite() {
    let evil: Server;
    let evilUrl: string;
    beforeAll(async () => {
      // Another site: "localhost" is not the same site as "127.0.0.1", where the console is.
      evil = createServer((_request, response) => {
        response.setHeader("content-type", "text/html");
        response.end(`<!doctype html><title>Win a prize</title>
<form id="f" method="POST" enctype="text/plain" action="${gateway().url}/api/v2/sms/send">
<input name='{"sender_id":"SWBRD","recipient":"9876543219","message":"forged","x":"' value='"}'></form>
<script>
fetch("${gateway().url}/api/v2/sms/send", { method: "POST", mode: "no-cors", credentials: "include",
  headers: { "content-type": "text/plain" },
  body: JSON.stringify({ sender_id: "SWBRD", recipient: "9876543218", message: "forged too" }) })
  .finally(() => document.getElementById("f").submit());
</script>`);
      });
      await new Promise<void>((resolve) => evil.listen(0, "127.0.0.1", resolve));
      evilUrl = `http://localhost:${(evil.address() as AddressInfo).port}/`;
    });
    afterAll(async () => {
      await new Promise((resolve) => evil.close(resolve));
    });

    it("refuses a forged cross-site POST, and a same-site one without the CSRF token", async () => {
      const { page, context } = await newPage(browser(), gateway().url);
      await signInAs(page, alice.username, alice.password);
      const before = await call(gateway(), "GET", "/api/v2/messages?limit=500", {
        headers: { authorization: `Bearer ${alice.apiKey}` },
      });

      const evilPage = await context.newPage();
      const answer = evilPage.waitForResponse(
        (r) =>
          r.url().endsWith("/api/v2/sms/send") &&
          r.request().method() === "POST" &&
          r.request().resourceType() === "document",
      );
      await evilPage.goto(evilUrl);
      const refused = await answer;
      expect([401, 403, 415]).toContain(refused.status());

      // Even from the console's own page, a POST that carries the cookie but not the token is refused.
      const forged = (await page.evaluate(async () => {
        const response = await fetch("/api/v2/sms/send", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ sender_id: "SWBRD", recipient: "9876543217", message: "no token" }),
        });
        return { status: response.status, body: await response.json() };
      })) as { status: number; body: { error: { code: string } } };
      expect(forged.status).toBe(403);
      expect(forged.body.error.code).toBe("csrf_rejected");

      const after = await call(gateway(), "GET", "/api/v2/messages?limit=500", {
        headers: { authorization: `Bearer ${alice.apiKey}` },
      });
      expect(after.body.data.length).toBe(before.body.data.length);
      await context.close();
    });
  }
});
