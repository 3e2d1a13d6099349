// The console in a real browser at 390 px (a phone), as the operator, for issue 40's item 5 on both
// engines: a connector's error codes page (a code mapped, one changed, the connector's own entry
// removed, a bad code refused in words), then a receipt with that code failing its message with
// the new reason; the carrier refunds page (a reason's refund chosen, another's changed, a choice
// removed, a removal another operator made first refused in words), then receipts refunded as
// the page said — with axe and no sideways scroll.
import { afterEach, beforeAll, expect, it } from "vitest";
import { until } from "../../channels/smpp-server/client.js";
import { sendFailedWith, smppDefinition } from "../../delivery/carriers/carrier-api.js";
import { FakeSmsc } from "../../delivery/carriers/fake-smsc.js";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  noneLoading,
  phonePageAs,
  useBrowser,
} from "../../helpers/browser.js";
import { describeEnginesTogether } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { milli } from "../../helpers/resellers.js";

describeInBrowser("console in the browser: carriers' error codes and refunds", () => {
  const browser = useBrowser();

  // The engines' suites run at the same time (binds, receipts and the pages' loads are waits),
  // each with its own gateway, pages and SMSCs, stopped after each of its tests.
  describeEnginesTogether("console in the browser: carriers' error codes and refunds", (engine) => {
    const gateway = useTestGateway(engine, { env: { REFUND_CARRIER_REASONS: "dlt_template_mismatch" } });
    let operator: TestAccount;
    let shop: TestAccount;
    const smscs: FakeSmsc[] = [];
    afterEach(async () => {
      for (const smsc of smscs.splice(0)) await smsc.stop();
    });

    beforeAll(async () => {
      const t = gateway();
      operator = await buildAccount(t, { role: "operator", sender: null });
      shop = await buildAccount(t, { credits: { sms: 100 } });
    });

    const admin = (method: string, path: string, json?: unknown) =>
      call(gateway(), method, `/admin/api${path}`, {
        headers: { authorization: `Bearer ${operator.apiKey}` },
        ...(json !== undefined ? { json } : {}),
      });

    /** A connector to a fake SMSC that carries route T (each test's own: the SMSC stops after it). */
    async function smscCarrier(t: TestGateway, name: string) {
      const smsc = new FakeSmsc();
      await smsc.start();
      smscs.push(smsc);
      const created = await admin("POST", "/carriers", smppDefinition(name, smsc));
      expect(created.status, created.text).toBe(201);
      expect((await admin("PUT", "/routes", { route: "T", prefix: "", connectors: [{ name }] })).status).toBeLessThan(
        300,
      );
      await t.gateway.workers!.carriers.reload();
      await until(async () => (await admin("GET", `/carriers/${name}`)).body.data.health.state === "up", 10_000);
      /** A send of the shop that the carrier takes, then fails with `err` in its receipt: its final status. */
      return (recipient: string, err: string) => sendFailedWith(t, shop, smsc, recipient, err);
    }

    // Each test's own expect: expect.poll needs it while the other engine's suite runs.
    it("maps, changes and removes a connector's codes at 390 px; a receipt then fails with the new reason", async ({
      expect,
    }) => {
      const t = gateway();
      const failWith = await smscCarrier(t, "codes-smsc");
      const { page, context, problems } = await phonePageAs(browser(), t.url, operator, "/operator/carriers");
      await page.getByRole("link", { name: "Error codes of codes-smsc" }).click();
      await page.getByRole("heading", { name: "Error codes of codes-smsc" }).waitFor();
      const table = page.getByTestId("error-codes");
      await expect.poll(() => table.getByTestId("error-code-633").textContent()).toContain("default table");
      await noneLoading(page);
      await expectNoHorizontalScroll(page, "error codes page");
      await expectAccessible(page, "error codes page");

      const form = page.getByRole("form", { name: "Map a carrier code" });
      await form.getByLabel("Carrier code").fill("63 3");
      await form.getByLabel("Description").fill("Spaced");
      await form.getByRole("button", { name: "Save code" }).click();
      await expect.poll(() => page.getByRole("alert").textContent()).toContain('"63 3" is not a carrier code');
      await expectNoHorizontalScroll(page, "error codes page with a refusal");

      await form.getByLabel("Carrier code").fill("699");
      await form.getByLabel("Reason").selectOption("dlt_consent_missing");
      await form.getByLabel("Description").fill("Consent scrub failed (this carrier)");
      await form.getByRole("button", { name: "Save code" }).click();
      await page.getByText("Code 699 now maps to dlt_consent_missing.").waitFor();
      await expect.poll(() => table.getByTestId("error-code-699").textContent()).toContain("codes-smsc's own");
      expect(await page.getByRole("alert").count()).toBe(0);

      await table.getByRole("button", { name: "Edit 633" }).click();
      expect(await form.getByLabel("Carrier code").inputValue()).toBe("633");
      expect(await form.getByLabel("Reason").inputValue()).toBe("dlt_template_mismatch");
      await form.getByLabel("Reason").selectOption("dlt_scrubbing_failed");
      await form.getByLabel("Description").fill("Scrubbing refused it (this carrier)");
      await form.getByRole("button", { name: "Save code" }).click();
      await expect.poll(() => table.getByTestId("error-code-633").textContent()).toContain("dlt_scrubbing_failed");
      await table.getByRole("button", { name: "Remove 699" }).click();
      await table.getByRole("button", { name: "Confirm: remove 699" }).click();
      await page.getByText("Code 699 is no longer mapped by codes-smsc itself.").waitFor();
      expect(await table.getByTestId("error-code-699").count()).toBe(0);
      await expectNoHorizontalScroll(page, "error codes page after the changes");
      await expectAccessible(page, "error codes page after the changes");
      expect(problems).toEqual([]);
      await context.close();

      // The server has the table as the page left it, and a receipt's code now means what it says.
      const own = (await admin("GET", "/carriers/codes-smsc")).body.data.definition.error_codes;
      expect(own).toEqual({
        "633": { reason: "dlt_scrubbing_failed", description: "Scrubbing refused it (this carrier)" },
      });
      const failed = await failWith("9876504001", "633");
      expect(failed.error).toMatchObject({ code: "UNDELIV", reason: "dlt_scrubbing_failed", carrier_code: "633" });
      expect(failed.error.message).toMatch(/^Scrubbing refused it \(this carrier\) \(carrier code 633\)\./);
      const unmapped = await failWith("9876504002", "699");
      expect(unmapped.error).not.toHaveProperty("reason");
    }, 120_000);

    it("chooses, changes and removes reasons' refunds at 390 px; receipts are then refunded as it says", async ({
      expect,
    }) => {
      const t = gateway();
      const failWith = await smscCarrier(t, "refund-smsc");
      const { page, context, problems } = await phonePageAs(browser(), t.url, operator, "/operator/carriers");
      await page.getByRole("button", { name: "Menu" }).click();
      await page.getByRole("link", { name: "Carrier refunds" }).click();
      await page.getByRole("heading", { name: "Carrier refunds" }).waitFor();
      const table = page.getByTestId("refund-policy");
      const row = (reason: string) => table.getByTestId(`refund-${reason}`);
      /** A reason's row as "refunded decided-by": `yes REFUND_CARRIER_REASONS`, `no your choice`. */
      const policyOf = async (reason: string) =>
        (await row(reason).locator("td").allTextContents()).slice(0, 2).join(" ");
      await expect.poll(() => policyOf("dlt_template_mismatch")).toBe("yes REFUND_CARRIER_REASONS");
      expect(await policyOf("dlt_header_inactive")).toBe("no REFUND_CARRIER_REASONS");
      await noneLoading(page);
      await expectNoHorizontalScroll(page, "carrier refunds page");
      await expectAccessible(page, "carrier refunds page");

      const form = page.getByRole("form", { name: "Choose a reason's refund" });
      await form.getByLabel("Reason").selectOption("dlt_header_inactive");
      await form.getByLabel("Carrier failures for it").selectOption("refund");
      await form.getByRole("button", { name: "Save choice" }).click();
      await expect.poll(() => policyOf("dlt_header_inactive")).toBe("yes your choice");
      await table.getByRole("button", { name: "Edit dlt_template_mismatch" }).click();
      expect(await form.getByLabel("Reason").inputValue()).toBe("dlt_template_mismatch");
      expect(await form.getByLabel("Carrier failures for it").inputValue()).toBe("refund");
      await form.getByLabel("Carrier failures for it").selectOption("keep");
      await form.getByRole("button", { name: "Save choice" }).click();
      await page
        .getByText("Carrier failures for dlt_template_mismatch are not refunded from the next report on.")
        .waitFor();
      await expect.poll(() => policyOf("dlt_template_mismatch")).toBe("no your choice");
      await expectNoHorizontalScroll(page, "carrier refunds page with choices");

      // Receipts follow the page: a header-inactive failure refunded, a template mismatch not.
      const start = await milli(t, shop.id);
      const inactive = await failWith("9876505001", "621");
      expect(inactive.error).toMatchObject({ reason: "dlt_header_inactive", carrier_code: "621" });
      expect(await milli(t, shop.id)).toBe(start);
      const mismatch = await failWith("9876505002", "633");
      expect(mismatch.error).toMatchObject({ reason: "dlt_template_mismatch", carrier_code: "633" });
      expect(await milli(t, shop.id)).toBeLessThan(start);

      // Another operator removes a choice first: this page's removal is refused in words.
      expect((await admin("DELETE", "/refund-policy/dlt_template_mismatch")).status).toBe(200);
      await table.getByRole("button", { name: "Remove the choice for dlt_template_mismatch" }).click();
      await table.getByRole("button", { name: "Confirm: remove the choice for dlt_template_mismatch" }).click();
      await expect
        .poll(() => page.getByRole("alert").textContent())
        .toContain("There is no choice of the operator for dlt_template_mismatch to remove");
      await table.getByRole("button", { name: "Remove the choice for dlt_header_inactive" }).click();
      await table.getByRole("button", { name: "Confirm: remove the choice for dlt_header_inactive" }).click();
      await page.getByText("dlt_header_inactive follows REFUND_CARRIER_REASONS again.").waitFor();
      await expect.poll(() => policyOf("dlt_header_inactive")).toBe("no REFUND_CARRIER_REASONS");
      expect(await policyOf("dlt_template_mismatch")).toBe("yes REFUND_CARRIER_REASONS");
      await expectNoHorizontalScroll(page, "carrier refunds page after removals");
      await expectAccessible(page, "carrier refunds page after removals");
      expect(problems).toEqual([]);
      await context.close();

      const policy = (await admin("GET", "/refund-policy")).body.data.reasons;
      expect(policy.filter((r: { source: string }) => r.source === "operator")).toEqual([]);
      const before = await milli(t, shop.id);
      await failWith("9876505003", "621");
      expect(await milli(t, shop.id)).toBeLessThan(before);
      await admin("DELETE", "/routes?route=T&prefix=");
    }, 120_000);
  });
});
