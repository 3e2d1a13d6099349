// A support person's search by number in a real browser, at phone width: a send the gateway
// refused never became a message, so a search that finds no message says so and links to the
// refusals to that number (the account's Messages and the operator's All messages); the refusal's
// answer names its code once ("422 invalid_sender_id", not the code twice).
import { beforeAll, expect, it } from "vitest";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  noneLoading,
  useConsole,
} from "../../helpers/browser.js";
import { buildAccount, type TestAccount } from "../../helpers/gateway.js";
import { sendSms } from "../../helpers/sms.js";

const REFUSED = "9876543299";
const SENT = "9876543298";

describeInBrowser("console in the browser: a number's refused sends from the message search", () => {
  const { gateway, operator, phonePage } = useConsole();
  let shop: TestAccount;

  beforeAll(async () => {
    const t = gateway();
    shop = await buildAccount(t);
    const refused = await sendSms(t, shop, { sender_id: "NOSUCH", recipient: `+91 ${REFUSED}`, message: "hi" });
    expect(refused.status, refused.text).toBe(422);
    const sent = await sendSms(t, shop, { sender_id: "SWBRD", recipient: SENT, message: "hi" });
    expect(sent.status, sent.text).toBe(200);
    await t.gateway.ctx.refusals.flush();
  });

  it("points the account from a number without messages to its refusals", async () => {
    const { page, context, problems } = await phonePage(shop, `/messages?q=${REFUSED}`);
    await page.getByRole("heading", { name: "Messages" }).waitFor();
    await noneLoading(page);
    const note = page.getByTestId("refused-sends");
    await expect.poll(async () => (await note.textContent()) ?? "").toContain("No messages match.");
    await expectNoHorizontalScroll(page, "messages page");
    await expectAccessible(page, "messages page");

    await note.getByRole("link", { name: `refused sends to ${REFUSED}` }).click();
    await page.getByRole("heading", { name: "Refusals" }).waitFor();
    expect(new URL(page.url()).search).toBe(`?recipient=${REFUSED}`);
    const cards = page.getByRole("list", { name: "Refused sends" }).getByRole("listitem");
    await expect.poll(() => cards.count()).toBe(1);
    const text = (await cards.first().textContent()) ?? "";
    expect(text).toContain("422 invalid_sender_id");
    expect(text.split("invalid_sender_id")).toHaveLength(2);

    // A number with messages lists them, and still names its refusals.
    await page.goto(`/messages?q=${SENT}`);
    await noneLoading(page);
    await expect.poll(() => page.locator("table.messages tbody tr").count()).toBe(1);
    const found = (await page.getByTestId("refused-sends").textContent()) ?? "";
    expect(found).not.toContain("No messages match.");
    expect(found).toContain(`refused sends to ${SENT}`);
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it("points the operator from a recipient without messages to its refusals", async () => {
    const { page, context, problems } = await phonePage(operator(), `/operator/messages?recipient=${REFUSED}`);
    await page.getByRole("heading", { name: "All messages" }).waitFor();
    await noneLoading(page);
    const note = page.getByTestId("refused-sends");
    await expect.poll(async () => (await note.textContent()) ?? "").toContain("No messages match.");
    await expectNoHorizontalScroll(page, "operator messages page");
    await note.getByRole("link", { name: `refused sends to ${REFUSED}` }).click();
    await page.getByRole("heading", { name: "Refusals" }).waitFor();
    const list = page.getByRole("list", { name: "Refused sends" });
    await expect.poll(() => list.getByRole("listitem").count()).toBe(1);
    expect(await list.getByRole("link", { name: shop.username }).count()).toBe(1);
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});
