// A fallback send on the console's message page, in a real browser at phone width (390 px): the
// SMS that went after a failed WhatsApp message names its chain, lists both steps with their
// conditions and statuses, and links to the WhatsApp step's message. axe on the page.
import { beforeAll, expect, it } from "vitest";
import { SMS_STEP, WHATSAPP_STEP } from "../../channels/chains/helpers.js";
import { connectSimulatedWhatsApp } from "../../channels/whatsapp/helpers.js";
import { until } from "../../domain/webhooks/receiver.js";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  noneLoading,
  phonePageAs,
  useBrowser,
} from "../../helpers/browser.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";

describeInBrowser("console in the browser: a fallback send on the message page", () => {
  const gateway = useTestGateway("sqlite", {
    env: {
      WHATSAPP_SIMULATOR_LATENCY_MS: "40",
      SIMULATOR_LATENCY_MS: "20",
      SIMULATOR_FAILURE_RATE: "0",
      CHAIN_POLL_MS: "50",
    },
  });
  const browser = useBrowser();
  let shop: TestAccount;
  let chain: { chain_id: string; steps: Array<{ message_id: string | null }> };

  beforeAll(async () => {
    const t = gateway();
    shop = await buildAccount(t, { credits: { sms: 10, whatsapp: 10 } });
    await connectSimulatedWhatsApp(t, shop.id);
    const headers = { authorization: `Bearer ${shop.apiKey}` };
    const started = await call(t, "POST", "/api/v2/send", {
      headers,
      json: {
        recipient: "919876500002",
        steps: [WHATSAPP_STEP, { ...SMS_STEP, to: "9876512345", after: { on: "failed" } }],
      },
    });
    expect(started.status, started.text).toBe(200);
    await until(async () => {
      chain = (await call(t, "GET", `/api/v2/send/${started.body.data.chain_id}`, { headers })).body.data;
      return (chain as unknown as { status: string }).status === "completed";
    });
  });

  it("shows the chain's steps on the SMS's page, with a link to the WhatsApp message, at 390 px", async () => {
    const { page, context, problems } = await phonePageAs(
      browser(),
      gateway().url,
      shop,
      `/messages/${chain.steps[1]!.message_id}`,
    );
    await page.getByRole("heading", { name: "Fallback send" }).waitFor();
    await noneLoading(page);
    const section = page.getByTestId("chain");
    await expect.poll(() => section.getByTestId("chain-step").count()).toBe(2);
    const text = (await section.textContent()) ?? "";
    expect(text).toContain("Step 2 of 2");
    expect(text).toContain(chain.chain_id);
    expect(text).toContain("completed, delivered");
    expect(text).toContain("if the step before failed");
    await expectNoHorizontalScroll(page, "message page with its chain");
    await expectAccessible(page, "message page with its chain");

    await section.getByRole("link", { name: "its message" }).click();
    await page.getByTestId("chain").waitFor();
    expect(await page.getByTestId("chain").textContent()).toContain("Step 1 of 2");
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});
