// The console in a real browser at 390 px (a phone), as the operator: an account's verify settings
// edited on its page (PUT /admin/api/accounts/{username}/verify), a resend order and a country the
// API refuses shown in words and nothing saved, then saved, read back by the API, and a setting
// cleared by emptying its field — with axe and no sideways scroll.
import { beforeAll, expect, it } from "vitest";
import { changeVerifySettings } from "../../../src/channels/verify/settings.js";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  noneLoading,
  useConsole,
} from "../../helpers/browser.js";
import { buildAccount, call, type TestAccount } from "../../helpers/gateway.js";

describeInBrowser("console in the browser: an account's verify settings, edited by the operator", () => {
  const { gateway, operator, phonePage } = useConsole();
  let shop: TestAccount;

  beforeAll(async () => {
    const t = gateway();
    shop = await buildAccount(t);
    await changeVerifySettings(t.db.store.db, t.clock, shop.id, { verify_whatsapp_template: "verify_code" });
  });

  async function settingsOf() {
    const answer = await call(gateway(), "GET", `/admin/api/accounts/${shop.username}/verify`, {
      headers: { authorization: `Bearer ${operator().apiKey}` },
    });
    return answer.body.data;
  }

  it("edits, refuses in words, saves and clears the settings at 390 px", async () => {
    const { page, context, problems } = await phonePage(operator(), `/operator/accounts/${shop.username}`);
    const form = page.getByRole("form", { name: "Verify settings" });
    await form.waitFor();
    await noneLoading(page);
    expect(await form.getByLabel("WhatsApp template").inputValue()).toBe("verify_code");
    expect(await form.getByLabel("Resend order").inputValue()).toBe("sms, whatsapp, voice");
    expect(await form.getByLabel("Countries").inputValue()).toBe("IN");
    await expectNoHorizontalScroll(page, "account page with verify settings");
    await expectAccessible(page, "account page with verify settings");

    await form.getByLabel("SMS sender ID").fill("SWBRD");
    await form.getByLabel("SMS DLT template ID").fill("1107160000000000001");
    await form.getByLabel("Resend order").fill("sms, fax");
    await form.getByRole("button", { name: "Save verify settings" }).click();
    await expect.poll(() => form.getByRole("alert").textContent()).toContain('"fax" is not one of sms');
    expect((await settingsOf()).verify_sender_id).toBeNull();
    await expectNoHorizontalScroll(page, "account page with a refused change");

    await form.getByLabel("Resend order").fill("sms, voice");
    await form.getByLabel("Countries").fill("IN, 91");
    await form.getByRole("button", { name: "Save verify settings" }).click();
    await expect.poll(() => form.getByRole("alert").textContent()).toContain("is not an ISO 3166 country code");

    await form.getByLabel("Countries").fill("in, sg");
    await form.getByLabel("WhatsApp template").fill("");
    await form.getByRole("button", { name: "Save verify settings" }).click();
    await form.getByText("Saved; the next verification uses them.").waitFor();
    expect(await form.getByRole("alert").count()).toBe(0);
    expect(await form.getByLabel("Countries").inputValue()).toBe("IN, SG");
    expect(await settingsOf()).toEqual({
      verify_template_id: "1107160000000000001",
      verify_sender_id: "SWBRD",
      verify_whatsapp_template: null,
      verify_caller_id: null,
      verify_email_from: null,
      verify_channels: ["sms", "voice"],
      verify_countries: ["IN", "SG"],
    });
    await expectNoHorizontalScroll(page, "account page with verify settings saved");
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);
});
