// The operator's message page as an operator_support staff user and as the operator, in a real
// browser at phone width (support audit): it asks nothing the role cannot read. It read
// GET /api/v2/webhooks (the operator's own settings, not the message's account's) for its note on
// webhooks, which operator_support is refused: a 403 and an error in the browser's console. Now
// no such request, no refusal, and the note says there is none for this message.
import type { Page } from "playwright-core";
import { beforeAll, expect, it } from "vitest";
import { describeInBrowser, noneLoading, useConsole } from "../../helpers/browser.js";
import { buildAccount, call } from "../../helpers/gateway.js";
import { sendSms } from "../../helpers/sms.js";

describeInBrowser("console in the browser: the operator's message page by role", () => {
  const { gateway, operator, page: newPage } = useConsole();
  let messageId = "";

  beforeAll(async () => {
    const shop = await buildAccount(gateway());
    const answer = await sendSms(gateway(), shop, { sender_id: "SWBRD", recipient: "9876543110", message: "hi" });
    expect(answer.status, answer.text).toBe(200);
    messageId = answer.body.data.message_id as string;
  });

  it("an operator_support user's message page asks nothing its role cannot read", async () => {
    const added = await call(gateway(), "POST", "/admin/api/staff", {
      headers: { authorization: `Bearer ${operator().apiKey}` },
      json: { login: "opsup", user_role: "operator_support", password: "opsup-password-1" },
    });
    expect(added.status, added.text).toBe(201);
    for (const login of ["opsup", undefined]) {
      const { page, context, problems } = await newPage();
      const asked: string[] = [];
      const refused: string[] = [];
      page.on("request", (request) => asked.push(new URL(request.url()).pathname));
      page.on("response", (response) => {
        // The signed-out page's look at its session (401) comes before the sign-in.
        const path = new URL(response.url()).pathname;
        if (response.status() >= 400 && path !== "/console/session") refused.push(`${response.status()} ${path}`);
      });
      await signIn(
        page,
        operator().username,
        login ? "opsup-password-1" : operator().password,
        `/operator/messages/${messageId}`,
        login,
      );
      await page.getByRole("heading", { name: /^Message to / }).waitFor();
      await noneLoading(page);
      expect(await page.getByTestId("webhook-note").textContent({ timeout: 5_000 })).toBe("None for this message.");
      expect(
        asked.filter((path) => path.startsWith("/api/v2/webhooks")),
        login,
      ).toEqual([]);
      expect(refused, login).toEqual([]);
      expect(problems, login).toEqual([]);
      await context.close();
    }
  }, 60_000);
});

async function signIn(page: Page, username: string, password: string, path: string, login?: string) {
  await page.goto(path);
  await page.getByLabel("Username").fill(username);
  if (login) await page.getByLabel("Your login").fill(login);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}
