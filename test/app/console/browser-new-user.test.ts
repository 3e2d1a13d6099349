// What a new user tripped over in the console (issue 38, item 7), each in a real browser: the
// main tables on a 390 px phone, the dark theme, one date format, the words, the confirmations,
// what a customer and an operator are told, the filters and the DLT headers after an approval.
// One gateway and one browser for the file.
import { beforeAll, expect, it } from "vitest";
import { addDltEntity, addSenderId } from "../../../src/domain/accounts/index.js";
import { receiver, useReceivers } from "../../domain/webhooks/receiver.js";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  newPage,
  noneLoading,
  openSignedIn,
  PHONE,
  phonePageAs,
  sendersListed,
  useBrowser,
  visit,
} from "../../helpers/browser.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";

const LONG_TEXT =
  "Your order 48213 has shipped and will reach you on Tuesday between 10:00 and 14:00; reply STOP to stop these.";

describeInBrowser("console in the browser: what a new user tripped over", () => {
  const gateway = useTestGateway("sqlite", {
    env: { SIMULATOR_LATENCY_MS: "20", SIMULATOR_FAILURE_RATE: "0", SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1" },
  });
  const browser = useBrowser();
  useReceivers();
  let operator: TestAccount;
  let shop: TestAccount;
  let messageId: string;

  beforeAll(async () => {
    const t = gateway();
    operator = await buildAccount(t, { role: "operator", sender: null });
    shop = await buildAccount(t, { credits: { sms: 500 } });
    // Twelve sends at once (they are committed together).
    const ids = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const sent = await call(t, "POST", "/api/v2/sms/send", {
          headers: { authorization: `Bearer ${shop.apiKey}` },
          json: { sender_id: "SWBRD", recipient: `98765${String(i).padStart(5, "0")}`, message: LONG_TEXT },
        });
        expect(sent.status, sent.text).toBe(200);
        return sent.body.data.message_id as string;
      }),
    );
    messageId = ids.at(-1)!;
    await addSenderId(t.db.store.db, t.clock, shop.id, "SHOPIN");
  });

  /** The element lies wholly inside the viewport's width (a phone user sees it without scrolling sideways). */
  async function expectInViewWidth(locator: import("playwright-core").Locator, what: string) {
    const box = await locator.boundingBox();
    expect(box, `${what} is not rendered`).not.toBeNull();
    expect(box!.x, `${what} starts left of the screen`).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width, `${what} ends right of the screen`).toBeLessThanOrEqual(PHONE.width);
  }

  it("shows the Messages table and the Approvals buttons on a 390 px phone, no page scrolling sideways", async () => {
    const { page, context, problems } = await phonePageAs(browser(), gateway().url, shop, "/messages");
    await expect.poll(() => page.locator("table.messages tbody tr").count()).toBe(12);
    await expectNoHorizontalScroll(page, "messages at 390 px");
    const first = page.locator("table.messages tbody tr").first();
    await expectInViewWidth(first.locator("td").nth(3), "the Status cell");
    await expectInViewWidth(first.locator("td").nth(4), "the Text cell");
    // Each cell says which column it is, and a row is a card of a few lines, not a 500 px column.
    expect(await first.locator("td").nth(3).getAttribute("data-label")).toBe("Status");
    expect((await first.boundingBox())!.height).toBeLessThan(300);
    await context.close();

    const op = await newPage(browser(), gateway().url, PHONE);
    await openSignedIn(op.page, operator.username, operator.password, "/operator/approvals");
    const row = op.page.getByTestId("approvals").locator("tbody tr", { hasText: "SHOPIN" });
    await row.waitFor();
    await expectNoHorizontalScroll(op.page, "approvals at 390 px");
    const buttons = await row.getByRole("button").all();
    // Approve (which white-lists the DLT header too, decision 0151) and Reject.
    expect(buttons.length).toBe(2);
    for (const button of buttons) await expectInViewWidth(button, `${await button.textContent()}`);
    for (const path of ["/operator/accounts", "/operator/carriers", "/operator/system"]) {
      await visit(op.page, path);
      await expectNoHorizontalScroll(op.page, `${path} at 390 px`);
    }
    expect([...problems, ...op.problems]).toEqual([]);
    await op.context.close();
  }, 90_000);

  it("follows the system's dark setting, axe clean in the dark and in the light", async () => {
    const customerPages = ["/", "/messages", `/messages/${messageId}`, "/send", "/bulk", "/contacts", "/templates"];
    const morePages = ["/registrations", "/inbound", "/credits", "/settings/webhooks", "/settings/keys"];
    const operatorPages = [
      "/operator/accounts",
      `/operator/accounts/${shop.username}`,
      "/operator/approvals",
      "/operator/carriers",
      "/operator/system",
    ];
    for (const [who, paths] of [
      [shop, [...customerPages, ...morePages]],
      [operator, operatorPages],
    ] as const) {
      const { page, context, problems } = await newPage(browser(), gateway().url);
      await page.emulateMedia({ colorScheme: "dark" });
      await openSignedIn(page, who.username, who.password);
      for (const path of paths) {
        await visit(page, path);
        expect(await page.evaluate("getComputedStyle(document.documentElement).backgroundColor")).toBe(
          "rgb(17, 24, 39)",
        );
        await expectAccessible(page, `${path} in the dark`);
      }
      // The same pages in the light, switched in place as a system setting changes.
      await page.emulateMedia({ colorScheme: "light" });
      expect(await page.evaluate("getComputedStyle(document.documentElement).backgroundColor")).toBe(
        "rgb(255, 255, 255)",
      );
      await expectAccessible(page, `${paths.at(-1)} in the light`);
      expect(problems).toEqual([]);
      await context.close();
    }
  }, 120_000);

  it("writes every date one way, in the account's zone: the chart's axes, a timeline, a CSV group's name", async () => {
    const { page, context, problems } = await newPage(browser(), gateway().url);
    // What the chart draws on its canvas, read back: axis labels are not in the page's text.
    await page.addInitScript(`{
      const drawn = (window.drawn = []);
      const fillText = CanvasRenderingContext2D.prototype.fillText;
      CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
        drawn.push(String(text));
        return fillText.call(this, text, ...rest);
      };
    }`);
    // A busy minute of 12,000 messages, whose count the y axis once cut to ",000".
    await page.route("**/api/v2/messages/per-minute?*", async (route) => {
      const answer = await (await route.fetch()).json();
      const at = new Date(Math.floor(Date.parse(answer.data.to) / 60_000 - 5) * 60_000).toISOString();
      answer.data.minutes = [{ at, sent: 12_000, delivered: 11_000, failed: 1_000 }];
      await route.fulfill({ json: answer });
    });
    await openSignedIn(page, shop.username, shop.password);
    await page.getByTestId("per-minute-summary").waitFor();
    const drawn = (await page.evaluate("window.drawn")) as string[];
    expect(drawn).toContain("10,000");
    const today = new Intl.DateTimeFormat("en-GB", {
      timeZone: "Asia/Kolkata",
      day: "2-digit",
      month: "short",
      year: "numeric",
    }).format(new Date());
    expect(drawn).toContain(today);
    expect(drawn.filter((text) => /\d+\/\d+\/\d+|am|pm/.test(text))).toEqual([]);
    // The plot starts right of the widest count, not 40 px in whatever the labels need.
    const plotLeft = (await page.locator(".u-over").evaluate((over) => over.offsetLeft)) as number;
    expect(plotLeft).toBeGreaterThanOrEqual(50);
    await page.unrouteAll();

    const tomorrow = new Date(Date.now() + 86_400_000 + 19_800_000).toISOString().slice(0, 10);
    const scheduled = await call(gateway(), "POST", "/api/v2/sms/schedule", {
      headers: { authorization: `Bearer ${shop.apiKey}` },
      json: { sender_id: "SWBRD", recipient: "9876511111", message: "Later", scheduled_at: `${tomorrow} 09:30:00` },
    });
    expect(scheduled.status, scheduled.text).toBe(200);
    await page.goto(`/messages/${scheduled.body.data.message_id}`);
    const timeline = page.getByTestId("timeline");
    await expect.poll(() => timeline.textContent()).toContain("scheduled");
    const [year, month, day] = tomorrow.split("-");
    const monthName = new Date(Date.UTC(2000, Number(month) - 1, 1)).toLocaleString("en-GB", { month: "short" });
    expect(await timeline.textContent()).toContain(`due ${day} ${monthName} ${year}, 09:30:00`);
    expect(await timeline.textContent()).not.toMatch(/\d{4}-\d{2}-\d{2}T/);

    await page.goto("/bulk");
    await page.getByText("Or upload a CSV file as a new group").click();
    await page.getByLabel("CSV file", { exact: true }).setInputFiles({
      name: "list.csv",
      mimeType: "text/csv",
      buffer: Buffer.from("9876512345,Asha\n"),
    });
    const hour = new Intl.DateTimeFormat("en-GB", {
      timeZone: "Asia/Kolkata",
      day: "2-digit",
      month: "short",
      year: "numeric",
      hour: "2-digit",
      hourCycle: "h23",
    })
      .format(new Date())
      .replace(/ at |, /, ", ");
    await page.getByRole("button", { name: "Upload the list" }).click();
    await page.getByTestId("upload-report").waitFor();
    // The new group is chosen once the groups' list is fetched again, after the report shows.
    const group = page.getByLabel("Contact group").locator("option:checked");
    await expect.poll(() => group.textContent()).toContain(`list.csv ${hour}:`);
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);

  it('counts in agreement and names WhatsApp as it is written: no "1 credits", "failed failed", "Whatsapp"', async () => {
    const { page, context, problems } = await newPage(browser(), gateway().url);
    const MISTAKES = /\b1 (credits|duplicates|messages|contacts|lines|parts|attempts)\b|Whatsapp|\b(\w+) \2\b/;
    await openSignedIn(page, shop.username, shop.password);
    await page.getByTestId("wallet-whatsapp").waitFor();
    expect(await page.getByTestId("wallet-whatsapp").locator(".card-label").textContent()).toBe("WhatsApp");
    expect(await page.locator("main").textContent()).not.toMatch(MISTAKES);

    await page.goto(`/messages/${messageId}`);
    await expect.poll(() => page.getByTestId("message-status").textContent()).toBe("delivered");
    expect(await page.getByTestId("message-cost").textContent()).toBe("1 credit from the SMS wallet");
    expect(await page.locator("main").textContent()).not.toMatch(MISTAKES);

    const group = await call(gateway(), "POST", "/api/v2/groups", {
      headers: { authorization: `Bearer ${shop.apiKey}` },
      json: { name: "Twice" },
    });
    expect(group.status, group.text).toBe(201);
    await page.goto(`/contacts/${group.body.data.id}`);
    await page.getByLabel("CSV file", { exact: true }).setInputFiles({
      name: "twice.csv",
      mimeType: "text/csv",
      buffer: Buffer.from("9876512345,Asha\n9876512345,Asha\n"),
    });
    await page.getByRole("button", { name: "Upload contacts" }).click();
    await expect
      .poll(() => page.getByTestId("upload-report").textContent())
      .toContain("2 lines read: 1 added, 1 duplicate, 0 refused.");
    for (const path of ["/credits", "/bulk"]) {
      await page.goto(path);
      await noneLoading(page);
      expect(await page.locator("main").textContent(), path).not.toMatch(MISTAKES);
    }
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it("asks before a bulk job with its recipients, segments and cost, and before blocking or rotating", async () => {
    const buyer = await buildAccount(gateway(), { credits: { sms: 100 } });
    const balance = async () =>
      (await call(gateway(), "GET", "/api/v2/balance", { headers: { authorization: `Bearer ${buyer.apiKey}` } })).body
        .data.wallets.sms;
    const { page, context, problems } = await newPage(browser(), gateway().url);
    await openSignedIn(page, buyer.username, buyer.password, "/bulk");
    await page.getByText("Or upload a CSV file as a new group").click();
    await page.getByLabel("CSV file", { exact: true }).setInputFiles({
      name: "three.csv",
      mimeType: "text/csv",
      buffer: Buffer.from("9876512345,Asha\n9876512346,Ravi\n9876512345,Asha\n"),
    });
    await page.getByRole("button", { name: "Upload the list" }).click();
    await expect.poll(() => page.getByTestId("upload-report").textContent()).toContain("1 duplicate");
    // 161 characters of GSM-7: two segments a message.
    await page.getByLabel("Message", { exact: true }).fill("x".repeat(161));
    await page.getByRole("button", { name: /^Start bulk job/ }).click();
    await page.getByTestId("bulk-preview").waitFor();
    expect(await page.getByTestId("preview-recipients").textContent()).toBe("2 recipients of 2");
    expect(await page.getByTestId("preview-segments").textContent()).toBe("2 segments a message, 4 segments in all");
    expect(await page.getByTestId("preview-cost").textContent()).toBe("4 credits from the SMS wallet, which holds 100");
    await expectAccessible(page, "bulk preview");
    // Nothing is sent or charged until it is confirmed, and a changed form asks for a new preview.
    expect(await balance()).toBe(100);
    await page.getByLabel("Message", { exact: true }).fill("Short now");
    await page.getByTestId("bulk-preview").waitFor({ state: "detached" });
    await page.getByRole("button", { name: /^Start bulk job/ }).click();
    expect(await page.getByTestId("preview-cost").textContent()).toMatch(/^2 credits/);
    await page.getByRole("button", { name: "Confirm: send to 2 recipients for 2 credits" }).click();
    await page.getByRole("heading", { name: /^Bulk job \d+$/ }).waitFor();
    expect(await balance()).toBe(98);

    const hooks = await receiver();
    await page.goto("/settings/webhooks");
    await page.getByLabel("Delivery report URL").fill(hooks.url);
    await page.getByRole("button", { name: "Save URLs" }).click();
    const secret = page.getByTestId("webhook-secret");
    await expect.poll(() => secret.textContent()).toMatch(/^whsec_/);
    const before = await secret.textContent();
    await page.getByRole("button", { name: "Rotate the secret" }).click();
    await page.getByText(/the current one keeps signing beside it for 24 hours/).waitFor();
    await page.getByRole("button", { name: "Keep it as it is" }).click();
    await page.getByRole("button", { name: "Rotate the secret" }).click();
    await page.getByRole("button", { name: "Confirm: rotate the secret" }).click();
    await expect.poll(() => secret.textContent()).not.toBe(before);
    expect(problems).toEqual([]);
    await context.close();

    const op = await newPage(browser(), gateway().url);
    await openSignedIn(op.page, operator.username, operator.password, `/operator/accounts/${buyer.username}`);
    await op.page.getByRole("button", { name: `Block ${buyer.username}` }).click();
    await op.page.getByText(/can no longer sign in/).waitFor();
    await expectAccessible(op.page, "block confirmation");
    expect(await balance()).toBe(98);
    await op.page.getByRole("button", { name: `Confirm: block ${buyer.username}` }).click();
    await op.page.getByRole("button", { name: `Activate ${buyer.username}` }).waitFor();
    const refused = await call(gateway(), "GET", "/api/v2/balance", {
      headers: { authorization: `Bearer ${buyer.apiKey}` },
    });
    expect(refused.body.error.code).toBe("account_inactive");
    expect(op.problems).toEqual([]);
    await op.context.close();
  }, 90_000);

  it("tells why a message has no carrier and no webhook as it is: a carrier's rejection, a URL set later", async () => {
    const rejected = await buildAccount(gateway(), { credits: { sms: 10 } });
    const key = { authorization: `Bearer ${rejected.apiKey}` };
    // The simulator refuses a submit to a number ending 0002.
    const sent = await call(gateway(), "POST", "/api/v2/sms/send", {
      headers: key,
      json: { sender_id: "SWBRD", recipient: "9876500002", message: "Refused by the carrier" },
    });
    expect(sent.status, sent.text).toBe(200);
    const { page, context, problems } = await newPage(browser(), gateway().url);
    await openSignedIn(page, rejected.username, rejected.password, `/messages/${sent.body.data.message_id}`);
    await expect.poll(() => page.getByTestId("message-status").textContent(), { timeout: 20_000 }).toBe("failed");
    // The carrier that refused it is named (the simulator), with no id of its own.
    expect(await page.getByTestId("carrier").textContent()).toBe(
      "simulator, which refused it at submit (the reason is above)",
    );
    expect(await page.getByTestId("carrier-id").textContent()).toBe("none: the carrier refused it");
    expect(await page.getByRole("note").textContent()).toContain("rejected");
    await expect.poll(() => page.getByTestId("webhook-note").textContent()).toContain("no delivery report URL is set");

    const hooks = await receiver();
    const set = await call(gateway(), "PUT", "/api/v2/webhooks", {
      headers: key,
      json: { delivery_report: hooks.url },
    });
    expect(set.status, set.text).toBe(200);
    await page.reload();
    await expect
      .poll(() => page.getByTestId("webhook-note").textContent())
      .toBe("None for this message: the delivery report URL was set after the message's last change.");
    await expectAccessible(page, "a rejected message's page");
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it("tells a customer what to ask the operator for, and the operator the command", async () => {
    const t = gateway();
    const strict = await buildAccount(t, { credits: { sms: 10 }, dltScrubbing: true });
    await addDltEntity(t.db.store.db, t.clock, strict.id, "1101160000000000001");
    const { page, context, problems } = await newPage(browser(), t.url);
    await openSignedIn(page, strict.username, strict.password, "/send");
    await page.getByLabel("To", { exact: true }).fill("9876543210");
    await page.getByLabel("Message").fill("Your OTP is 1234");
    await sendersListed(page);
    await page.getByRole("button", { name: "Send SMS" }).click();
    const alert = page.getByRole("alert");
    await expect.poll(() => alert.textContent()).toContain("must match an approved template");
    expect(await alert.textContent()).toContain("Ask the operator to approve a DLT template this text matches");
    expect(await alert.textContent()).not.toMatch(/switchboard |\/admin\/api/);
    expect(problems).toEqual([]);
    await context.close();

    const op = await newPage(browser(), t.url);
    await openSignedIn(op.page, operator.username, operator.password, `/operator/accounts/${strict.username}`);
    await expect
      .poll(() => op.page.getByRole("note").textContent())
      .toContain(`switchboard dlt headers add --account ${strict.username} --header SWBRD`);
    expect(await op.page.getByRole("note").textContent()).toContain(
      `switchboard templates add --account ${strict.username}`,
    );
    expect(op.problems).toEqual([]);
    await op.context.close();
  }, 60_000);

  it("filters on a Status choice at once, says why a carrier is down, and what a job still waits for", async () => {
    const t = gateway();
    const mixed = await buildAccount(t, { credits: { sms: 10 } });
    const key = { authorization: `Bearer ${mixed.apiKey}` };
    for (const recipient of ["9876500002", "9876500005"]) {
      const sent = await call(t, "POST", "/api/v2/sms/send", {
        headers: key,
        json: { sender_id: "SWBRD", recipient, message: "Filter me" },
      });
      expect(sent.status, sent.text).toBe(200);
    }
    const { page, context, problems } = await newPage(browser(), t.url);
    await openSignedIn(page, mixed.username, mixed.password, "/messages");
    const rows = page.locator("table.messages tbody tr");
    await expect.poll(() => rows.count()).toBe(2);
    await expect
      .poll(() => page.locator("table.messages tbody").textContent(), { timeout: 20_000 })
      .toContain("failed");
    await page.getByLabel("Status").selectOption("failed");
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain("9876500002");
    expect(new URL(page.url()).searchParams.get("status")).toBe("failed");

    // A job whose every message is submitted waits only for reports: nothing to cancel.
    const job = await call(t, "POST", "/api/v2/sms/bulk", {
      headers: key,
      json: { sender_id: "SWBRD", message: "Job", recipients: ["9876500011", "9876500012"] },
    });
    expect(job.status, job.text).toBe(200);
    const jobId = job.body.data.job_id;
    await page.route(`**/api/v2/bulk-jobs/${jobId}`, async (route) => {
      const answer = await (await route.fetch()).json();
      answer.data.job.status = "processing";
      answer.data.job.completed_at = null;
      answer.data.pending_stages = { not_queued: 0, scheduled: 0, queued: 0, submitted: 1 };
      await route.fulfill({ json: answer });
    });
    await page.goto(`/bulk/${jobId}`);
    await expect
      .poll(() => page.getByTestId("job-waiting").textContent())
      .toContain("Waiting only for the carrier's delivery report of 1 message submitted");
    expect(await page.getByRole("button", { name: "Cancel the job" }).count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();

    const admin = { authorization: `Bearer ${operator.apiKey}` };
    const carrier = await call(t, "POST", "/admin/api/carriers", {
      headers: admin,
      json: { name: "closed-port", type: "smpp", host: "127.0.0.1", port: 1, system_id: "a", password: "b" },
    });
    expect(carrier.status, carrier.text).toBe(201);
    try {
      const op = await newPage(browser(), t.url);
      await openSignedIn(op.page, operator.username, operator.password, "/operator/carriers");
      const row = op.page.getByTestId("carrier-closed-port");
      await expect.poll(() => row.locator("td").nth(2).textContent(), { timeout: 30_000 }).toMatch(/down/);
      const health = (await row.locator("td").nth(2).textContent()) ?? "";
      const lastError = (await row.locator("td").last().textContent()) ?? "";
      expect(lastError).not.toBe("none");
      expect(lastError).toContain(health.replace(/^down\s*/, "").trim());
      expect(op.problems).toEqual([]);
      await op.context.close();
    } finally {
      await call(t, "DELETE", "/admin/api/carriers/closed-port", { headers: admin });
    }
  }, 90_000);

  it("approves a sender ID as a DLT header too, and adds and removes an account's DLT headers and entities", async () => {
    const t = gateway();
    const dlt = await buildAccount(t, { credits: { sms: 10 }, dltScrubbing: true, sender: null });
    await addDltEntity(t.db.store.db, t.clock, dlt.id, "1101160000000000001");
    await addSenderId(t.db.store.db, t.clock, dlt.id, "NEWHDR");
    const template = await call(t, "POST", `/admin/api/accounts/${dlt.username}/templates`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      json: { name: "hello", content: "Hello {#var#}", entity_id: "1101160000000000001", approve: true },
    });
    expect(template.status, template.text).toBe(201);
    const { page, context, problems } = await newPage(browser(), t.url);
    await openSignedIn(page, operator.username, operator.password, "/operator/approvals");
    // The one approve button white-lists the sender ID as a DLT header too (decision 0151).
    await page.getByRole("button", { name: "Approve NEWHDR", exact: true }).click();
    await page.getByText(`Sender ID NEWHDR of ${dlt.username} approved and white-listed as a DLT header`).waitFor();
    // The sender is usable on a DLT route: before, an approved sender ID was refused -32 there.
    const sent = await call(t, "POST", "/api/v2/sms/send", {
      headers: { authorization: `Bearer ${dlt.apiKey}` },
      json: { sender_id: "NEWHDR", recipient: "9876543210", message: "Hello Asha" },
    });
    expect(sent.status, sent.text).toBe(200);

    await page.goto(`/operator/accounts/${dlt.username}`);
    const headers = page.getByTestId("dlt-headers");
    await headers.getByText("NEWHDR", { exact: true }).waitFor();
    await page.getByLabel("DLT header to add").fill("SECOND");
    await page.getByRole("button", { name: "Add DLT header" }).click();
    await headers.getByText("SECOND", { exact: true }).waitFor();
    await page.getByLabel("DLT entity ID to add").fill("1101160000000000002");
    await page.getByRole("button", { name: "Add DLT entity ID" }).click();
    await page.getByTestId("dlt-entities").getByText("1101160000000000002", { exact: true }).waitFor();
    await expectAccessible(page, "operator account page with DLT registrations");
    await page.getByRole("button", { name: "Remove NEWHDR" }).click();
    await page.getByRole("button", { name: "Confirm: remove NEWHDR" }).click();
    await headers.getByText("NEWHDR", { exact: true }).waitFor({ state: "detached" });
    const listed = await call(t, "GET", `/admin/api/accounts/${dlt.username}`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
    });
    expect(listed.body.data.registrations.dlt_headers).toEqual(["SECOND"]);
    expect([...listed.body.data.registrations.dlt_entities].sort()).toEqual([
      "1101160000000000001",
      "1101160000000000002",
    ]);
    const refused = await call(t, "POST", "/api/v2/sms/send", {
      headers: { authorization: `Bearer ${dlt.apiKey}` },
      json: { sender_id: "NEWHDR", recipient: "9876543210", message: "Hello Asha" },
    });
    expect(refused.body.error.code).toBe("dlt_header_not_whitelisted");
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);
});
