// A message page names the zone of its times, at 1280 and 390 px (audit F18): the account's own
// page its zone; the operator's page of an account's message the account's zone by default (what
// the customer's console shows), with a switch to the operator's and back.
import { expect, it } from "vitest";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  newPage,
  openSignedIn,
  PHONE,
  useConsole,
} from "../../helpers/browser.js";
import { buildAccount } from "../../helpers/gateway.js";
import { messageRow } from "../../helpers/message-row.js";

const WIDE = { width: 1280, height: 900 };
const SHOTS = process.env.SWITCHBOARD_SHOTS_DIR;
/** 23:47:35 UTC: 23:47 in London in winter, 05:17 the next day in Kolkata. */
const ACCEPTED = Date.UTC(2026, 10, 30, 23, 47, 35);

describeInBrowser("console in the browser: a message page's time zone", () => {
  const { gateway, browser, operator } = useConsole();

  it("names the zone on the account's page and shows the operator the account's times", async () => {
    const t = gateway();
    const london = await buildAccount(t);
    await t.db.store.db
      .updateTable("accounts")
      .set({ time_zone: "Europe/London" })
      .where("id", "=", london.id)
      .execute();
    const id = "q01HKSTZ00000000000000000AA";
    await t.db.store.transaction(async (trx) => {
      await t.db.store.insertMany(trx, "messages", [
        messageRow({
          id,
          account_id: london.id,
          recipient: "9812340077",
          status: "delivered",
          connector: "smsc-a",
          upstream_id: "X5",
          created_at: ACCEPTED,
          submitted_at: ACCEPTED + 1000,
          done_at: ACCEPTED + 5000,
          delivered_at: ACCEPTED + 5000,
        }),
      ]);
    });
    const accepted = (page: import("playwright-core").Page) =>
      page.getByTestId("timeline").locator("li").first().locator("time").textContent();

    for (const [viewport, width] of [
      [WIDE, 1280],
      [PHONE, 390],
    ] as const) {
      const own = await newPage(browser(), t.url, viewport);
      await openSignedIn(own.page, london.username, london.password, `/messages/${id}`);
      const ownNote = own.page.getByTestId("times-zone");
      await ownNote.waitFor();
      expect(await ownNote.textContent()).toBe("Times in Europe/London (GMT). ");
      expect(await accepted(own.page)).toBe("30 Nov 2026, 23:47:35");
      await expectNoHorizontalScroll(own.page, `the account's message page at ${width} px`);
      await expectAccessible(own.page, `the account's message page at ${width} px`);
      expect(own.problems).toEqual([]);
      await own.context.close();

      const desk = await newPage(browser(), t.url, viewport);
      await openSignedIn(desk.page, operator().username, operator().password, `/operator/messages/${id}`);
      const note = desk.page.getByTestId("times-zone");
      await expect.poll(() => note.textContent(), { timeout: 20_000 }).toContain("the account's zone");
      expect(await note.textContent()).toBe(
        "Times in the account's zone, Europe/London (GMT), as its console shows them; yours is Asia/Kolkata (GMT+5:30). Show your times",
      );
      expect(await accepted(desk.page)).toBe("30 Nov 2026, 23:47:35");
      await expectNoHorizontalScroll(desk.page, `the operator's message page at ${width} px`);
      await expectAccessible(desk.page, `the operator's message page at ${width} px`);
      await desk.page.getByTestId("timeline").screenshot({ path: `/tmp/sb-message-zone-${width}.png` });
      await note.screenshot({ path: `/tmp/sb-message-zone-note-${width}.png` });

      await desk.page.getByRole("button", { name: "Show your times" }).click();
      await expect.poll(() => accepted(desk.page)).toBe("01 Dec 2026, 05:17:35");
      expect(await note.textContent()).toBe(
        "Times in your zone, Asia/Kolkata (GMT+5:30); the account's is Europe/London (GMT). Show the account's times",
      );
      await desk.page.getByRole("button", { name: "Show the account's times" }).click();
      await expect.poll(() => accepted(desk.page)).toBe("30 Nov 2026, 23:47:35");
      expect(desk.problems).toEqual([]);
      await desk.context.close();
    }
  }, 90_000);

  it("shows the operator an account's page in the account's zone, its creation time too, with the zone named", async () => {
    const t = gateway();
    const london = await buildAccount(t);
    await t.db.store.db
      .updateTable("accounts")
      .set({ time_zone: "Europe/London", created_at: ACCEPTED })
      .where("id", "=", london.id)
      .execute();
    const { page, context, problems } = await newPage(browser(), t.url, PHONE);
    await openSignedIn(page, operator().username, operator().password, `/operator/accounts/${london.username}`);
    const created = page.locator("main p", { hasText: ", created " });
    await expect.poll(() => created.textContent(), { timeout: 20_000 }).toContain("created 30 Nov 2026, 23:47:35");
    const note = page.getByTestId("times-zone");
    expect(await note.textContent()).toBe(
      "Times in the account's zone, Europe/London (GMT), as its console shows them; yours is Asia/Kolkata (GMT+5:30). Show your times",
    );
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/operator-account-zone-390.png` });
    await page.getByRole("button", { name: "Show your times" }).click();
    await expect.poll(() => created.textContent()).toContain("created 01 Dec 2026, 05:17:35");
    await expectNoHorizontalScroll(page, "the operator's account page at 390 px");
    expect(problems).toEqual([]);
    await context.close();
  });
});
