// The operator's Price section of a sub-account's page in a real browser (operator audit O5,
// decision 0165): a sub-account its reseller put on the built-in `default` card shows `default`
// (1 credit a unit), not its parent's price; the operator puts it back on its parent's price and
// on `default` again; a card below the parent's price is refused with the API's words and
// nothing changed; the sub-account's own Audit page names no card nor markup. At 390 px and
// 1280 px: no sideways scroll, axe.
import { expect, it } from "vitest";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  noneLoading,
  signInAs,
  useConsole,
} from "../../helpers/browser.js";
import { buildAccount, call } from "../../helpers/gateway.js";
import { subAccount } from "../../helpers/resellers.js";
import { keyOf } from "../../helpers/sms.js";

describeInBrowser("console in the browser: a sub-account's price", () => {
  const { gateway, operator, page: openPage } = useConsole();
  const admin = (method: string, path: string, json?: unknown) =>
    call(gateway(), method, `/admin/api${path}`, {
      headers: { authorization: `Bearer ${operator().apiKey}` },
      ...(json === undefined ? {} : { json }),
    });

  for (const viewport of [
    { width: 390, height: 844 },
    { width: 1280, height: 900 },
  ]) {
    it(`shows the card a sub-account is priced by and sets default or its parent's price, at ${viewport.width} px`, async () => {
      for (const [card, price] of [
        ["cost", 0.5],
        ["cheap", 0.1],
      ] as const) {
        const put = await admin("PUT", `/price-cards/${card}`, {
          rows: [{ channel: "sms", route: "*", prefix: "*", price }],
        });
        expect(put.status, put.text).toBe(200);
      }
      const top = await buildAccount(gateway(), { credits: { sms: 100 } });
      expect((await admin("PATCH", `/accounts/${top.username}`, { price_card: "cost" })).status).toBe(200);
      const sub = await subAccount(gateway(), top, { markup_percent: 50 });
      const byParent = await call(gateway(), "PATCH", `/api/v2/subaccounts/${sub.username}`, {
        headers: keyOf(top),
        json: { price_card: "default" },
      });
      expect(byParent.status, byParent.text).toBe(200);

      const { page, context, problems } = await openPage(viewport);
      await signInAs(page, operator().username, operator().password, `/operator/accounts/${sub.username}`);
      await page.getByRole("heading", { name: `Account ${sub.username}` }).waitFor();
      await noneLoading(page);
      const select = page.getByLabel("Price card");
      expect(await select.inputValue()).toBe("default");
      await page.getByText("default: 1 credit an SMS segment or voice unit").waitFor();
      expect(await select.locator("option").allTextContents()).toEqual(["parent+0%", "default", "cheap", "cost"]);
      const set = page.getByRole("button", { name: "Set the price card" });
      expect(await set.isDisabled()).toBe(true);
      await expectAccessible(page, "a sub-account on default");
      await expectNoHorizontalScroll(page, "a sub-account on default");

      await select.selectOption("cheap");
      await set.click();
      const refusal = page.getByRole("alert");
      await expect
        .poll(() => refusal.textContent())
        .toContain(
          `The price card "cheap" prices an SMS segment on route T to numbers no other prefix names (prefix *) at 0.1, below its parent ${top.username}'s price there (0.5)`,
        );
      await expectNoHorizontalScroll(page, "a refused card");
      expect((await admin("GET", `/accounts/${sub.username}`)).body.data.price_card).toBe("default");

      await select.selectOption("parent+0%");
      await page.getByText(`the parent ${top.username}'s price plus 0 %`).waitFor();
      await set.click();
      await page.getByText("Priced by parent+0% from the next send.").waitFor();
      expect((await admin("GET", `/accounts/${sub.username}`)).body.data).toMatchObject({
        price_card: "parent+0%",
        markup_percent: 0,
      });
      await select.selectOption("default");
      await set.click();
      await page.getByText("Priced by default from the next send.").waitFor();
      const quote = await call(gateway(), "GET", "/api/v2/pricing?route=T&recipient=9876543210", {
        headers: keyOf(sub),
      });
      expect(quote.body.data).toMatchObject({ price: 1, card: "your price" });
      await expectAccessible(page, "a sub-account's price set");
      expect(problems).toEqual([]);
      await context.close();

      // The sub-account's own Audit page reads those changes as its own price, naming no card nor markup.
      const own = await openPage(viewport);
      await signInAs(own.page, sub.username, sub.password, "/audit");
      await own.page.getByRole("heading", { name: "Audit log" }).waitFor();
      const list = own.page.getByRole("list", { name: "Audit entries" });
      await expect.poll(() => list.textContent()).toContain("account.price_card");
      const text = (await list.textContent()) ?? "";
      expect(text).toContain("your price");
      for (const secret of ["parent+", "markup", "cost", "default"]) expect(text, secret).not.toContain(secret);
      await expectNoHorizontalScroll(own.page, "a sub-account's audit log");
      expect(own.problems).toEqual([]);
      await own.context.close();
    }, 60_000);
  }
});
