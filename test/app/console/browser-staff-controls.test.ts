// What each operator staff role is offered, at phone width (console audit 1): operator_support and
// operator_finance were offered every operator_admin control (Approve/Reject, Block, Clear sign-in
// locks, Reset two-factor, Add credits, Correct the balance, Save limits and routes, Save verify
// settings, Remove a DLT entity, Create account, Invite/Remove/End sessions of staff, the refund
// policy's Save choice and Edit, Save alert settings; a carrier's Disable and its code mapping),
// each refused 403 when pressed. Now support
// is offered none of them (the settings forms stay readable, disabled, with who changes them);
// finance keeps what the API lets it do (top-up, correction, the price, the refund policy) and no
// other; operator_admin keeps them all.
import type { Page } from "playwright-core";
import { beforeAll, expect, it } from "vitest";
import { describeInBrowser, expectNoHorizontalScroll, noneLoading, useConsole, visit } from "../../helpers/browser.js";
import { buildAccount, call, type TestAccount } from "../../helpers/gateway.js";

const ADMIN_ONLY =
  /^(Approve |Reject |Block |Activate |Clear sign-in locks|Reset two-factor|Save limits and routes|Save verify settings|Remove |Add DLT|Create account|Invite|Add$|End sessions of|Save alert settings|Set the threshold|Make |Disable |Enable |Save code)/;
const MONEY = /^(Add credits|Correct the balance|Save choice|Edit |Save price)/;

describeInBrowser("console in the browser: operator staff see only the controls their role may use", () => {
  const { gateway, operator, page: newPage } = useConsole();
  let shop: TestAccount;

  beforeAll(async () => {
    shop = await buildAccount(gateway());
    const asked = await call(gateway(), "POST", "/api/v2/templates", {
      headers: { authorization: `Bearer ${shop.apiKey}` },
      json: { name: "ship", content: "Order {#var#} shipped." },
    });
    expect(asked.status, asked.text).toBeLessThan(300);
    const entity = await call(gateway(), "POST", `/admin/api/accounts/${shop.username}/dlt/entities`, {
      headers: { authorization: `Bearer ${operator().apiKey}` },
      json: { entity_id: "1101000000000000001" },
    });
    expect(entity.status, entity.text).toBeLessThan(300);
    const carrier = await call(gateway(), "POST", "/admin/api/carriers", {
      headers: { authorization: `Bearer ${operator().apiKey}` },
      json: {
        name: "aggregator-one",
        type: "http-sms",
        method: "GET",
        url: "http://127.0.0.1:9/send?to={to}&text={text}",
        auth: { type: "none" },
        response: { type: "json", id_path: "id" },
        timeout_ms: 2_000,
        max_connections: 2,
        rate_per_second: 10,
      },
    });
    expect(carrier.status, carrier.text).toBeLessThan(300);
    for (const [login, user_role] of [
      ["opsup", "operator_support"],
      ["opfin", "operator_finance"],
    ]) {
      const added = await call(gateway(), "POST", "/admin/api/staff", {
        headers: { authorization: `Bearer ${operator().apiKey}` },
        json: { login, user_role, password: `${login}-password-1` },
      });
      expect(added.status, added.text).toBe(201);
    }
  });

  const PAGES = () => [
    "/operator/approvals",
    `/operator/accounts/${shop.username}`,
    "/operator/accounts",
    "/operator/staff",
    "/operator/refunds",
    "/operator/alerts",
    "/operator/carriers",
    "/operator/carriers/aggregator-one/error-codes",
  ];

  /** The names of the enabled buttons in the page's main part, on each page. */
  async function offered(login?: string): Promise<{ names: string[]; refused: string[]; page: Page }> {
    const { page, problems } = await newPage();
    const refused: string[] = [];
    page.on("response", (response) => {
      const path = new URL(response.url()).pathname;
      if (response.status() === 403) refused.push(path);
    });
    await page.goto("/operator/accounts");
    await page.getByLabel("Username").fill(operator().username);
    if (login) await page.getByLabel("Your login").fill(login);
    await page.getByLabel("Password").fill(login ? `${login}-password-1` : operator().password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    const names: string[] = [];
    for (const path of PAGES()) {
      await visit(page, path);
      await noneLoading(page);
      if (path === "/operator/approvals") await page.getByTestId("approvals").locator("tbody tr").first().waitFor();
      if (path.includes(shop.username)) await page.getByText("Save verify settings").waitFor();
      if (path.startsWith("/operator/carriers")) await page.locator("main tbody tr").first().waitFor();
      const buttons = page.locator("main button:enabled");
      // A button's name as a screen reader reads it: its aria-label where it has one (Approvals'
      // "Approve ship" shows "Approve"), else its text.
      const read = (els: Array<{ getAttribute(name: string): string | null; textContent: string | null }>) =>
        els.map((e) => e.getAttribute("aria-label") ?? e.textContent ?? "");
      for (const text of await buttons.evaluateAll(read)) names.push(text.trim());
      await expectNoHorizontalScroll(page, `${path} as ${login ?? "operator_admin"}`);
    }
    expect(problems, login).toEqual([]);
    return { names, refused, page };
  }

  it("operator_support is offered no change at 390 px, and reads the settings with who changes them", async () => {
    const { names, refused, page } = await offered("opsup");
    expect(names.filter((n) => ADMIN_ONLY.test(n) || MONEY.test(n))).toEqual([]);
    expect(refused).toEqual([]);
    // Its settings forms are there to read, disabled, saying who changes them.
    await visit(page, "/operator/alerts");
    expect(await page.getByTestId("staff-note").textContent()).toBe(
      "Your role (operator_support) reads this; changing the alert settings is for operator_admin staff.",
    );
    expect(await page.getByRole("button", { name: "Save alert settings" }).isDisabled()).toBe(true);
    await page.context().close();
  }, 90_000);

  it("operator_finance is offered the money controls only", async () => {
    const { names, refused, page } = await offered("opfin");
    expect(names.filter((n) => ADMIN_ONLY.test(n))).toEqual([]);
    for (const control of ["Add credits", "Correct the balance", "Save choice"]) expect(names).toContain(control);
    expect(refused).toEqual([]);
    // A carrier's codes are mapped by operator_admin: finance reads them without Edit.
    await visit(page, "/operator/carriers/aggregator-one/error-codes");
    await noneLoading(page);
    expect(await page.locator("main button:enabled", { hasText: /^Edit / }).count()).toBe(0);
    await page.context().close();
  }, 90_000);

  it("operator_admin keeps every control", async () => {
    const { names, page } = await offered();
    for (const control of [
      "Approve ship",
      `Block ${shop.username}`,
      "Clear sign-in locks",
      "Reset two-factor sign-in",
      "Add credits",
      "Correct the balance",
      "Save limits and routes",
      "Save verify settings",
      "Remove 1101000000000000001",
      "Create account",
      "End sessions of opsup",
      "Save choice",
      "Save alert settings",
      "Disable aggregator-one",
    ])
      expect(names, control).toContain(control);
    await page.context().close();
  }, 90_000);
});
