// A reseller supporting its own customers in a real browser, at phone width: from its grandchild's
// messages (top → mid → leaf, ?subaccount=leaf) it opens the failed message's page (the failure in
// words, the sub-account named), goes on to the sub-account's refused sends (why each was refused)
// and back; a message id searched that its own list does not hold is offered by its page. Another
// reseller's customer's message and refusals are not found (the API's 404 in words), never shown.
// Opened from a level of the tree (top → mid's sub-accounts → leaf's row), the messages, a message,
// the refused sends and their filters keep the trail in the URL, show it from the top, say whose
// sub-account it is, and lead back to that level; opened from the account's own list (the line
// above its table), they lead back to that list. A hand-edited trail yields to the levels the API
// names, a hand-edited way back leads to the list that holds it. Named alone (a link without `via`,
// a message by its id), the account is shown where the API says it is; a blank one is none, the
// reader's own page (its sub-accounts too). The axe check and no sideways scroll on each page.
import { beforeAll, expect, it } from "vitest";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  noneLoading,
  useConsole,
} from "../../helpers/browser.js";
import { buildAccount, type TestAccount } from "../../helpers/gateway.js";
import { resellerTree, subAccount } from "../../helpers/resellers.js";
import { FAST_SIMULATOR, sendSms, waitForStatus } from "../../helpers/sms.js";

const FAILS = "9876500001";

describeInBrowser("console in the browser: a reseller reads its sub-accounts' messages and refusals", () => {
  const { gateway, phonePage } = useConsole({ env: FAST_SIMULATOR });
  let top: TestAccount;
  let mid: TestAccount;
  let leaf: TestAccount;
  let otherSub: TestAccount;
  let failed: string;
  let foreign: string;

  beforeAll(async () => {
    const t = gateway();
    ({ top, mid, leaf } = await resellerTree(t, t.clock));
    otherSub = await subAccount(t, await buildAccount(t));
    const sent = await sendSms(t, leaf, {
      sender_id: "SWBRD",
      recipient: FAILS,
      message: "Order 77 ships",
      route: "T",
    });
    expect(sent.status, sent.text).toBe(200);
    failed = sent.body.data.message_id;
    await waitForStatus(t, leaf, failed);
    const refused = await sendSms(t, leaf, { sender_id: "NOSUCH", recipient: "9876540031", message: "hi", route: "T" });
    expect(refused.status, refused.text).toBe(422);
    const theirs = await sendSms(t, otherSub, { sender_id: "SWBRD", recipient: "9876540032", message: "hi" });
    expect(theirs.status, theirs.text).toBe(200);
    foreign = theirs.body.data.message_id;
    await t.gateway.ctx.refusals.flush();
  });

  it("opens a grandchild's failed message and its refused sends at 390 px", async () => {
    const { page, context, problems } = await phonePage(top, `/messages?subaccount=${leaf.username}`);
    await page.getByRole("heading", { name: `Messages of ${leaf.username}` }).waitFor();
    await noneLoading(page);
    const rows = page.locator("table.messages tbody tr");
    await expect.poll(() => rows.count()).toBe(1);
    await expectNoHorizontalScroll(page, "a sub-account's messages");
    await expectAccessible(page, "a sub-account's messages");

    await rows.first().getByRole("link").click();
    await page.getByRole("heading", { name: `Message to ${FAILS}` }).waitFor();
    expect(await page.getByTestId("message-status").textContent()).toContain("failed");
    expect(await page.getByRole("note").textContent()).toMatch(/Failed: .*UNDELIV/s);
    expect(await page.getByTestId("message-subaccount").textContent()).toContain(leaf.username);
    expect(await page.getByTestId("webhook-note").textContent()).toBe("None for this message.");
    await expectNoHorizontalScroll(page, "a sub-account's message");
    await expectAccessible(page, "a sub-account's message");

    await page.getByTestId("message-subaccount").getByRole("link", { name: "its refused sends" }).click();
    await page.getByRole("heading", { name: `Refusals of ${leaf.username}` }).waitFor();
    const cards = page.getByRole("list", { name: "Refused sends" }).getByRole("listitem");
    await expect.poll(() => cards.count()).toBe(1);
    expect(await cards.first().textContent()).toContain("invalid_sender_id");
    await expectNoHorizontalScroll(page, "a sub-account's refusals");
    await expectAccessible(page, "a sub-account's refusals");
    // A search there stays in the sub-account's refusals.
    await page.getByLabel("Error code").fill("invalid_sender_id");
    await page.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get("subaccount")).toBe(leaf.username);
    await expect.poll(() => cards.count()).toBe(1);

    // The top's own list does not hold the grandchild's message; its id opens its page.
    await page.goto(`/messages?q=${failed}`);
    await page.getByTestId("open-by-id").getByRole("link", { name: failed }).click();
    await page.getByRole("heading", { name: `Message to ${FAILS}` }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it("leads back from a grandchild's messages and refused sends to the level they were opened from, at 390 px", async () => {
    const { page, context, problems } = await phonePage(top, "/subaccounts");
    await page.getByRole("link", { name: `1 sub-account of ${mid.username}` }).click();
    const levelTwo = page.getByRole("heading", { name: `Sub-accounts of ${mid.username}` });
    await levelTwo.waitFor();
    const row = page.getByTestId(`activity-${leaf.username}`);
    const backToLevelTwo = page
      .getByTestId("subaccount-filter")
      .getByRole("link", { name: `${mid.username}'s sub-accounts` });

    await row.getByRole("link", { name: `Messages of ${leaf.username}` }).click();
    await page.getByRole("heading", { name: `Messages of ${leaf.username}` }).waitFor();
    expect(new URL(page.url()).search).toBe(`?via=${mid.username}&subaccount=${leaf.username}`);
    await noneLoading(page);
    expect(await page.getByTestId("subaccount-trail").textContent()).toBe(
      `Your sub-accounts › ${mid.username} › ${leaf.username} › messages`,
    );
    const words = await page.getByTestId("subaccount-filter").textContent();
    expect(words).toContain(`${leaf.username}'s messages (a sub-account of ${mid.username}) · `);
    expect(words).not.toContain("Your sub-account ");
    await page.screenshot({ path: "/tmp/sb-trail-messages-390.png", fullPage: true });
    await expectNoHorizontalScroll(page, "a grandchild's messages opened from its level");
    await expectAccessible(page, "a grandchild's messages opened from its level");
    // A filter, the message's page and its way back keep the trail.
    await page.getByLabel("Status", { exact: true }).selectOption("failed");
    await expect.poll(() => new URL(page.url()).searchParams.get("status")).toBe("failed");
    expect(new URL(page.url()).searchParams.getAll("via")).toEqual([mid.username]);
    await page.locator("table.messages tbody tr").first().getByRole("link").click();
    await page.getByRole("heading", { name: `Message to ${FAILS}` }).waitFor();
    await page.getByRole("link", { name: "Back to the messages" }).click();
    await page.getByRole("heading", { name: `Messages of ${leaf.username}` }).waitFor();
    await backToLevelTwo.click();
    await levelTwo.waitFor();
    await page.getByTestId(`sub-${leaf.username}`).waitFor();

    await row.getByRole("link", { name: `Refused sends of ${leaf.username}` }).click();
    await page.getByRole("heading", { name: `Refusals of ${leaf.username}` }).waitFor();
    const cards = page.getByRole("list", { name: "Refused sends" }).getByRole("listitem");
    await expect.poll(() => cards.count()).toBe(1);
    await page.getByTestId("subaccount-filter").screenshot({ path: "/tmp/sb-trail-refusals-390.png" });
    expect(await page.getByTestId("subaccount-trail").textContent()).toBe(
      `Your sub-accounts › ${mid.username} › ${leaf.username} › refused sends`,
    );
    expect(await page.getByTestId("subaccount-filter").textContent()).toContain(
      `${leaf.username}'s refused sends (a sub-account of ${mid.username}) · `,
    );
    await expectNoHorizontalScroll(page, "a grandchild's refused sends opened from its level");
    await expectAccessible(page, "a grandchild's refused sends opened from its level");
    await page.getByLabel("Error code").fill("invalid_sender_id");
    await page.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get("code")).toBe("invalid_sender_id");
    expect(new URL(page.url()).searchParams.getAll("via")).toEqual([mid.username]);
    await backToLevelTwo.click();
    await levelTwo.waitFor();
    await page.getByTestId(`sub-${leaf.username}`).waitFor();
    expect(problems).toEqual([]);

    // A hand-edited trail (a level empty, the account above itself, a level that is not its parent)
    // yields to the levels the API names: back to the list that holds it.
    for (const path of [
      `/refusals?via=&via=${mid.username}&subaccount=${leaf.username}`,
      `/messages?via=${leaf.username}&subaccount=${leaf.username}`,
      `/messages?via=${otherSub.username}&subaccount=${leaf.username}`,
    ]) {
      await page.goto(path);
      await page.getByRole("heading", { name: new RegExp(`of ${leaf.username}$`) }).waitFor();
      await expect
        .poll(() => page.getByTestId("subaccount-trail").textContent(), { message: path })
        .toMatch(new RegExp(`^Your sub-accounts › ${mid.username} › ${leaf.username} › `));
      const back = page.getByTestId("subaccount-filter").getByRole("link", { name: `${mid.username}'s sub-accounts` });
      expect(await back.getAttribute("href"), path).toBe(`/subaccounts?subaccount=${mid.username}`);
    }
    await page
      .getByTestId("subaccount-filter")
      .getByRole("link", { name: `${mid.username}'s sub-accounts` })
      .click();
    await levelTwo.waitFor();
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it("leads back from the account's own messages, refused sends and a message to its own list it was opened from, at 390 px", async () => {
    const { page, context, problems } = await phonePage(
      top,
      `/subaccounts?via=${mid.username}&subaccount=${leaf.username}`,
    );
    const ownList = page.getByRole("heading", { name: `Sub-accounts of ${leaf.username}` });
    await ownList.waitFor();
    await noneLoading(page);
    const backToOwn = page
      .getByTestId("subaccount-filter")
      .getByRole("link", { name: `${leaf.username}'s sub-accounts` });

    await page.getByRole("link", { name: `${leaf.username}'s messages` }).click();
    await page.getByRole("heading", { name: `Messages of ${leaf.username}` }).waitFor();
    expect(new URL(page.url()).search).toBe(`?via=${mid.username}&subaccount=${leaf.username}&back=own`);
    await noneLoading(page);
    await page.screenshot({ path: "/tmp/sb-trail-own-messages-390.png", fullPage: true });
    await expectNoHorizontalScroll(page, "a grandchild's messages opened from its own list");
    await expectAccessible(page, "a grandchild's messages opened from its own list");
    // A filter and a message's Back keep the way back.
    await page.getByLabel("Status", { exact: true }).selectOption("failed");
    await expect.poll(() => new URL(page.url()).searchParams.get("status")).toBe("failed");
    expect(new URL(page.url()).searchParams.get("back")).toBe("own");
    await page.locator("table.messages tbody tr").first().getByRole("link").click();
    await page.getByRole("heading", { name: `Message to ${FAILS}` }).waitFor();
    await page.getByRole("link", { name: "Back to the messages" }).click();
    await page.getByRole("heading", { name: `Messages of ${leaf.username}` }).waitFor();
    await backToOwn.click();
    await ownList.waitFor();

    await page.getByRole("link", { name: "its refused sends" }).click();
    await page.getByRole("heading", { name: `Refusals of ${leaf.username}` }).waitFor();
    await page.getByRole("list", { name: "Refused sends" }).getByRole("listitem").first().waitFor();
    await page.getByTestId("subaccount-filter").getByRole("link", { name: "its messages" }).click();
    await page.getByRole("heading", { name: `Messages of ${leaf.username}` }).waitFor();
    await backToOwn.click();
    await ownList.waitFor();
    expect(problems).toEqual([]);

    // The shared link without `back`, or with one hand-edited, leads to the list that holds it.
    for (const back of ["", "&back=OWN", "&back=mid"]) {
      await page.goto(`/refusals?via=${mid.username}&subaccount=${leaf.username}${back}`);
      await page.getByRole("heading", { name: `Refusals of ${leaf.username}` }).waitFor();
      const holder = page
        .getByTestId("subaccount-filter")
        .getByRole("link", { name: `${mid.username}'s sub-accounts` });
      expect(await holder.getAttribute("href"), back).toBe(`/subaccounts?subaccount=${mid.username}`);
    }
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it("places a grandchild named alone where the API says it is, and a blank one is none, at 390 px", async () => {
    const { page, context, problems } = await phonePage(top, `/messages?subaccount=${leaf.username}`);
    const trail = page.getByTestId("subaccount-trail");
    const words = page.getByTestId("subaccount-filter");
    const levelTwo = `/subaccounts?subaccount=${mid.username}`;
    await page.getByRole("heading", { name: `Messages of ${leaf.username}` }).waitFor();
    await noneLoading(page);
    expect(await trail.textContent()).toBe(`Your sub-accounts › ${mid.username} › ${leaf.username} › messages`);
    expect(await words.textContent()).toContain(`${leaf.username}'s messages (a sub-account of ${mid.username}) · `);
    expect(await page.locator("main").textContent()).not.toContain("Your sub-account ");
    expect(await words.getByRole("link", { name: `${mid.username}'s sub-accounts` }).getAttribute("href")).toBe(
      levelTwo,
    );
    await page.screenshot({ path: "/tmp/sb-trail-alone-messages-390.png", fullPage: true });
    await expectNoHorizontalScroll(page, "a grandchild's messages named alone");
    await expectAccessible(page, "a grandchild's messages named alone");
    // Its message opened from there carries the levels on.
    await page.locator("table.messages tbody tr").first().getByRole("link").click();
    await page.getByRole("heading", { name: `Message to ${FAILS}` }).waitFor();
    expect(new URL(page.url()).searchParams.getAll("via")).toEqual([mid.username]);

    for (const [path, what] of [
      [`/refusals?subaccount=${leaf.username}`, "refused sends"],
      [`/settings/smpp?subaccount=${leaf.username}`, "SMPP binds"],
    ] as const) {
      await page.goto(path);
      await noneLoading(page);
      await expect
        .poll(() => trail.textContent(), { message: path })
        .toBe(`Your sub-accounts › ${mid.username} › ${leaf.username} › ${what}`);
      expect(await words.getByRole("link", { name: `${mid.username}'s sub-accounts` }).getAttribute("href")).toBe(
        levelTwo,
      );
      expect(await page.locator("main").textContent(), path).not.toContain("Your sub-account ");
    }

    // Its list of sub-accounts named alone: the same place, its levels each a link back up.
    await page.goto(`/subaccounts?subaccount=${leaf.username}`);
    await page.getByRole("heading", { name: `Sub-accounts of ${leaf.username}` }).waitFor();
    await noneLoading(page);
    await expect.poll(() => trail.textContent()).toBe(`Your sub-accounts › ${mid.username} › ${leaf.username}`);
    expect(await trail.getByRole("link", { name: mid.username }).getAttribute("href")).toBe(levelTwo);
    await expectNoHorizontalScroll(page, "a grandchild's sub-accounts named alone");
    await expectAccessible(page, "a grandchild's sub-accounts named alone");

    // A message opened by its id alone: its trail from the top, its links to the account's pages.
    await page.goto(`/messages/${failed}`);
    await page.getByRole("heading", { name: `Message to ${FAILS}` }).waitFor();
    expect(await trail.textContent()).toBe(`Your sub-accounts › ${mid.username} › ${leaf.username} › message`);
    const fact = page.getByTestId("message-subaccount");
    expect(await fact.getByRole("link", { name: leaf.username }).getAttribute("href")).toBe(
      `/messages?via=${mid.username}&subaccount=${leaf.username}`,
    );
    await expectNoHorizontalScroll(page, "a grandchild's message opened by its id");
    await expectAccessible(page, "a grandchild's message opened by its id");
    await page.screenshot({ path: "/tmp/sb-trail-message-by-id-390.png", fullPage: true });
    await page.getByRole("link", { name: "Back to the messages" }).click();
    await page.getByRole("heading", { name: `Messages of ${leaf.username}` }).waitFor();
    expect(await trail.textContent()).toBe(`Your sub-accounts › ${mid.username} › ${leaf.username} › messages`);

    // A blank account is none: the reader's own pages, never "Your sub-account 's".
    for (const [path, heading] of [
      ["/messages?subaccount=%20%20", "Messages"],
      ["/refusals?subaccount=%20", "Refusals"],
      ["/settings/smpp?subaccount=%20", "SMPP"],
    ] as const) {
      await page.goto(path);
      await page.getByRole("heading", { name: heading, exact: true, level: 1 }).waitFor();
      await noneLoading(page);
      expect(await page.locator("main").textContent(), path).not.toMatch(/sub-account/i);
      expect(await trail.count(), path).toBe(0);
    }
    await page.goto("/messages?subaccount=%20%20");
    await expect.poll(() => page.locator("main").textContent()).toContain("No messages match.");
    // The reader's own list of sub-accounts, with its forms, not "Sub-accounts of ".
    await page.goto("/subaccounts?subaccount=%20");
    await page.getByRole("heading", { name: "Sub-accounts", exact: true, level: 1 }).waitFor();
    await page.getByRole("form", { name: "Create a sub-account" }).waitFor();
    expect(await trail.count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it("tells a direct sub-account as its own, whatever `via` a shared link holds, at 390 px", async () => {
    const { page, context, problems } = await phonePage(
      mid,
      `/messages?via=${mid.username}&subaccount=${leaf.username}`,
    );
    await page.getByRole("heading", { name: `Messages of ${leaf.username}` }).waitFor();
    const trail = page.getByTestId("subaccount-trail");
    await expect.poll(() => trail.textContent()).toBe(`Your sub-accounts › ${leaf.username} › messages`);
    expect(await page.getByTestId("subaccount-filter").textContent()).toContain(
      `Your sub-account ${leaf.username}'s messages · `,
    );
    expect(await page.locator("main").textContent()).not.toContain(top.username);
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it("shows another reseller's customer's message and refusals as not found", async () => {
    const { page, context } = await phonePage(top, `/messages/${foreign}`);
    await page.getByRole("heading", { name: "Message" }).waitFor();
    await expect.poll(async () => (await page.getByRole("alert").textContent()) ?? "").toContain("No message with id");
    expect(await page.locator("main").textContent()).not.toContain(otherSub.username);
    await page.goto(`/refusals?subaccount=${otherSub.username}`);
    await expect
      .poll(async () => (await page.getByRole("alert").textContent()) ?? "")
      .toContain(`No sub-account named "${otherSub.username}"`);
    expect(await page.getByRole("list", { name: "Refused sends" }).count()).toBe(0);
    await expectNoHorizontalScroll(page, "another tree's refusals");
    await context.close();
  }, 120_000);
});
