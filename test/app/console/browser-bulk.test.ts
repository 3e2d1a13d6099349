// The console's account pages in a real browser: a 10,000-line CSV uploaded with its progress
// bar and run as a bulk job to completion with its progress visible; a contact upload with the
// lines it refused; a scheduled job's time in its confirmation (a past one said to go now), on its
// page and in the list, and the job cancelled reading "cancelled" and refunded (console audit C3,
// C4); registrations, templates, inbound, credits and the other
// sends; another account's job and group answer not found. axe and 360 px on every page.
import { beforeAll, expect, it } from "vitest";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  newPage,
  noneLoading,
  openSignedIn,
  useBrowser,
  visit,
} from "../../helpers/browser.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";

const CONTACTS = 10_000;

function csv(lines: string[]): { name: string; mimeType: string; buffer: Buffer } {
  return { name: "customers.csv", mimeType: "text/csv", buffer: Buffer.from(`${lines.join("\n")}\n`) };
}

describeInBrowser("console in the browser: bulk, contacts and account pages", () => {
  // Reports come 1.5 s after each submit: the job is seen submitted and not yet delivered, whatever the machine's speed.
  const gateway = useTestGateway("sqlite", { env: { SIMULATOR_LATENCY_MS: "1500", SIMULATOR_FAILURE_RATE: "0" } });
  const browser = useBrowser();
  let alice: TestAccount;
  let bob: TestAccount;
  let aliceJob: number;
  let aliceGroup: number;

  const api = (who: TestAccount, method: string, path: string, json?: unknown) =>
    call(gateway(), method, path, {
      headers: { authorization: `Bearer ${who.apiKey}` },
      ...(json !== undefined ? { json } : {}),
    });

  beforeAll(async () => {
    alice = await buildAccount(gateway(), { credits: { sms: 20_000 } });
    bob = await buildAccount(gateway(), { credits: { sms: 10 } });
    const group = await api(alice, "POST", "/api/v2/groups", { name: "later" });
    aliceGroup = group.body.data.id;
    await api(alice, "POST", `/api/v2/groups/${aliceGroup}/contacts`, ["9876500011", "9876500012", "9876500013"]);
    const job = await api(alice, "POST", "/api/v2/sms/bulk", {
      group_id: aliceGroup,
      sender_id: "SWBRD",
      message: "Tomorrow's sale",
      schedule_at: "2099-01-01 09:00:00",
    });
    expect(job.status, job.text).toBe(200);
    aliceJob = job.body.data.job_id;
  });

  it("uploads a 10,000-line CSV with its progress and runs it as a bulk job to completion", async () => {
    const { page, context, problems } = await newPage(browser(), gateway().url);
    await openSignedIn(page, alice.username, alice.password);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Bulk" }).click();
    await page.getByRole("heading", { name: "Bulk" }).waitFor();
    await page.getByText("Or upload a CSV file as a new group").click();
    // Numbers ending 7777: none of the simulator's magic endings (0001 fails, 0006 is never reported…).
    const lines = [
      "number,name",
      ...Array.from({ length: CONTACTS }, (_, i) => `7${String(i).padStart(5, "0")}7777,Customer ${i}`),
    ];
    await page.getByLabel("CSV file", { exact: true }).setInputFiles(csv(lines));
    await page.getByRole("button", { name: "Upload the list" }).click();
    await page.getByLabel("Upload").waitFor();
    await expect
      .poll(() => page.getByTestId("upload-report").textContent(), { timeout: 30_000 })
      .toContain("10,000 lines read: 10,000 added, 0 duplicates, 0 refused.");
    expect(await page.getByLabel("Upload").getAttribute("value")).toBe(
      await page.getByLabel("Upload").getAttribute("max"),
    );
    expect(await page.getByLabel("Contact group").inputValue()).not.toBe("");
    await expect
      .poll(() => page.getByLabel("Contact group").locator("option:checked").textContent())
      .toContain("10,000 contacts");
    await expectAccessible(page, "bulk page");

    await page.getByLabel("Message", { exact: true }).fill("Our store opens at 10 tomorrow.");
    await page.getByRole("button", { name: /^Start bulk job/ }).click();
    expect(await page.getByTestId("preview-cost").textContent()).toMatch(/^10,000 credits from the SMS wallet/);
    await page.getByRole("button", { name: "Confirm: send to 10,000 recipients for 10,000 credits" }).click();
    await page.getByRole("heading", { name: /^Bulk job \d+$/ }).waitFor();
    await expectAccessible(page, "bulk job page");
    // The progress moves while the job runs: messages are seen waiting for their reports on the way.
    const submitted = new Set<string>();
    await expect
      .poll(
        async () => {
          submitted.add((await page.getByTestId("job-submitted").textContent())?.replace(/\D/g, "") ?? "");
          return page.getByTestId("job-status").textContent();
        },
        { timeout: 120_000, interval: 250 },
      )
      .toBe("completed");
    expect([...submitted].some((count) => Number(count) > 0)).toBe(true);
    expect(await page.getByTestId("job-delivered").textContent()).toContain("10,000");
    expect(await page.getByTestId("job-progress-words").textContent()).toBe("10,000 of 10,000 final");
    expect(problems).toEqual([]);
    await context.close();
  }, 180_000);

  it("imports contacts into a new group and lists the lines it refused", async () => {
    const { page, context, problems } = await newPage(browser(), gateway().url);
    await openSignedIn(page, alice.username, alice.password, "/contacts");
    await page.getByLabel("Group name").fill("Retail customers");
    await page.getByRole("button", { name: "Create group" }).click();
    // The heading names the group, not its number (console audit 7).
    await page.getByRole("heading", { name: "Contact group Retail customers", exact: true }).waitFor();
    await page
      .getByLabel("CSV file", { exact: true })
      .setInputFiles(csv(["number,name", "9876543210,Asha", "12345,Bad", "9876543211,Ravi", "98765,Short"]));
    await page.getByRole("button", { name: "Upload contacts" }).click();
    const report = page.getByTestId("upload-report");
    await expect.poll(() => report.textContent()).toContain("4 lines read: 2 added, 0 duplicates, 2 refused.");
    const errors = page.getByTestId("upload-errors").locator("tbody tr");
    expect(await errors.allTextContents()).toEqual([
      "312345not an Indian mobile number",
      "598765not an Indian mobile number",
    ]);
    await page.reload();
    await expect.poll(() => page.getByTestId("contacts").locator("tbody tr").count()).toBe(2);
    await expectAccessible(page, "contact group page");
    await page.goto("/contacts");
    await page.getByTestId("groups").getByRole("link", { name: "Retail customers" }).waitFor();
    await expectAccessible(page, "contacts page");
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it("says when a scheduled job goes: in its confirmation, a past time as now", async () => {
    const { page, context, problems } = await newPage(browser(), gateway().url, { width: 390, height: 844 });
    await openSignedIn(page, alice.username, alice.password, `/bulk?group=${aliceGroup}`);
    await page.getByLabel("Message", { exact: true }).fill("The sale starts at nine");
    await page.getByLabel("Send at (optional)").fill("2099-01-01T09:00");
    await page.getByRole("button", { name: "Start bulk job…" }).click();
    const when = page.getByTestId("preview-when");
    await expect.poll(() => when.textContent()).toMatch(/^Scheduled for 01 Jan 2099, 09:00:00 \(.+\)$/);
    await page.getByRole("button", { name: "Confirm: schedule to 3 recipients for 3 credits" }).waitFor();
    await expectNoHorizontalScroll(page, "bulk confirmation, scheduled");
    await page.getByRole("button", { name: "Change something" }).click();
    await page.getByLabel("Send at (optional)").fill("2020-01-01T09:00");
    await page.getByRole("button", { name: "Start bulk job…" }).click();
    await expect.poll(() => when.textContent()).toMatch(/^Sent now: 01 Jan 2020, 09:00:00 \(.+\) has passed$/);
    await page.getByRole("button", { name: "Confirm: send to 3 recipients for 3 credits" }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it("shows a scheduled job's time, then cancels it: cancelled and refunded, on its page and in the list", async () => {
    const { page, context, problems } = await newPage(browser(), gateway().url, { width: 390, height: 844 });
    await openSignedIn(page, alice.username, alice.password, `/bulk/${aliceJob}`);
    await page.getByTestId("job-not-queued").waitFor();
    expect(await page.getByTestId("job-not-queued").textContent()).toContain("3");
    expect(await page.getByTestId("job-status").textContent()).toBe("scheduled");
    expect(await page.getByTestId("job-send-at").textContent()).toMatch(/scheduled for 01 Jan 2099, \d\d:\d\d:00/);
    await visit(page, "/bulk");
    const row = page.getByTestId(`job-row-${aliceJob}`);
    expect(await row.textContent()).toMatch(/scheduled\s+scheduled for 01 Jan 2099/);
    await visit(page, `/bulk/${aliceJob}`);
    await page.getByRole("button", { name: "Cancel the job" }).click();
    await page.getByRole("button", { name: "Confirm: cancel what is not queued yet" }).click();
    await page.getByText("3 messages cancelled, 3 credits refunded.").waitFor();
    await page.reload();
    await expect.poll(() => page.getByTestId("job-status").textContent()).toBe("cancelled");
    expect(await page.getByTestId("job-cancelled").textContent()).toContain("3");
    expect(await page.getByTestId("job-cost").textContent()).toBe(
      "3 credits charged; the 3 cancelled messages were refunded (the ledger on Credits lists each refund).",
    );
    expect(await page.getByTestId("job-send-at").count()).toBe(0);
    await visit(page, "/bulk");
    await expect.poll(() => row.locator("td").allTextContents()).toEqual(expect.arrayContaining(["cancelled", "3"]));
    expect((await row.locator("td").allTextContents()).slice(1)).toEqual(["cancelled", "3", "0", "0", "3"]);
    await expectNoHorizontalScroll(page, "bulk jobs list");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("asks for registrations, registers a template and a keyword, and transfers credits", async () => {
    const { page, context, problems } = await newPage(browser(), gateway().url);
    await openSignedIn(page, alice.username, alice.password, "/registrations");
    const senders = page.getByTestId("registrations-sender-ids");
    await senders.getByLabel("New sender ID").fill("ALERTS");
    await senders.getByRole("button", { name: "Ask for approval" }).click();
    await expect.poll(() => senders.locator("tbody").textContent()).toContain("ALERTSpending");
    const callers = page.getByTestId("registrations-caller-ids");
    await callers.getByLabel("New caller number").fill("12345");
    await callers.getByRole("button", { name: "Ask for approval" }).click();
    expect(await callers.getByRole("alert").locator(".error-code").textContent()).toBe("invalid_request");
    await expectAccessible(page, "registrations page");

    await page.goto("/inbound");
    await page.getByLabel("Keyword", { exact: true }).fill("info");
    await page.getByLabel("Reply", { exact: true }).fill("Open 9 to 5");
    await page.getByRole("button", { name: "Register keyword" }).click();
    await page.getByText("Keyword INFO registered").waitFor();
    await expectAccessible(page, "inbound page");

    await page.goto("/credits");
    await page.getByLabel("To account (username)").fill(bob.username);
    await page.getByLabel("SMS credits", { exact: true }).fill("2.5");
    await page.getByRole("button", { name: "Transfer" }).click();
    // A transfer waits for its confirmation, naming what moves (console audit 2).
    await page.getByRole("button", { name: `Confirm: send 2.5 credits to ${bob.username}` }).click();
    await page.getByText(`2.5 credits sent to ${bob.username}`).waitFor();
    await expect.poll(() => page.getByTestId("credits-sms").textContent()).not.toContain("20,000");
    // The flood counter is its own sentence, saying what it counts (console audit C8).
    expect(await page.getByTestId("credits-used").textContent()).toMatch(
      /^SMS credits used today [\d,.]+, this month [\d,.]+\.$/,
    );
    expect(await page.getByTestId("daily-limit").textContent()).toMatch(
      /^No daily SMS limit; [\d,]+ counted toward one today \(every SMS accepted today, those cancelled and refunded since included\)\.$/,
    );
    await expectAccessible(page, "credits page");
    const bobs = await api(bob, "GET", "/api/v2/balance");
    expect(bobs.body.data.wallets.sms).toBe(12.5);

    for (const channel of ["whatsapp", "email", "voice"]) {
      await visit(page, `/send?channel=${channel}`);
      await page.getByRole("heading", { name: "Send" }).waitFor();
      // An account without WhatsApp, or without an approved email domain, is told so, with no send
      // button (console audit C7).
      await page
        .getByRole("button", { name: /^(Send|Place)/ })
        .or(page.getByTestId("whatsapp-disabled"))
        .or(page.getByTestId("email-no-domain"))
        .first()
        .waitFor();
      await noneLoading(page);
      await expectAccessible(page, `send page (${channel})`);
    }
    expect(await page.getByText("No approved caller number").count()).toBe(1);
    await visit(page, "/templates");
    await page.getByRole("heading", { name: "Templates" }).waitFor();
    await expectAccessible(page, "templates page");
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it("answers another account's job and group with not found", async () => {
    const { page, context } = await newPage(browser(), gateway().url);
    await openSignedIn(page, bob.username, bob.password);
    for (const [path, words] of [
      [`/bulk/${aliceJob}`, `No bulk job "${aliceJob}" in this account.`],
      [`/contacts/${aliceGroup}`, "not_found"],
    ] as const) {
      await page.goto(path);
      const alert = page.getByRole("alert");
      await expect.poll(() => alert.textContent()).toContain(words);
      expect(await alert.locator(".error-code").textContent()).toBe("not_found");
    }
    expect(await page.content()).not.toContain("Tomorrow's sale");
    await context.close();
  });

  it("works at 360 px wide", async () => {
    const { page, context } = await newPage(browser(), gateway().url, { width: 360, height: 740 });
    await openSignedIn(page, alice.username, alice.password);
    for (const path of [
      "/bulk",
      `/bulk/${aliceJob}`,
      "/contacts",
      `/contacts/${aliceGroup}`,
      "/templates",
      "/registrations",
      "/inbound",
      "/credits",
      "/send?channel=email",
      "/send?channel=voice",
      "/send?channel=whatsapp",
    ]) {
      await visit(page, path);
      await expectNoHorizontalScroll(page, path);
    }
    await context.close();
  }, 60_000);
});
