// The console in a real browser at 390 px (a phone), as the operator, for issue 40's items 2 and
// 3: an entity's telemarketer chain declared (the operator's own TM ID appended), a malformed one
// refused in words, the chain cleared; and the account's DLT template matching switched from
// strict to lenient in "Limits and routes" — with axe and no sideways scroll.
import { beforeAll, expect, it } from "vitest";
import { addDltEntity } from "../../../src/domain/accounts/index.js";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  noneLoading,
  phonePageAs,
  useBrowser,
} from "../../helpers/browser.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";

const ENTITY = "1101160000000000071";

describeInBrowser("console in the browser: DLT telemarketer chains and template matching", () => {
  const gateway = useTestGateway("sqlite", { env: { DLT_TM_ID: "1702000000000000099" } });
  const browser = useBrowser();
  let operator: TestAccount;
  let shop: TestAccount;

  beforeAll(async () => {
    const t = gateway();
    operator = await buildAccount(t, { role: "operator", sender: null });
    shop = await buildAccount(t, { dltScrubbing: true });
    await addDltEntity(t.db.store.db, t.clock, shop.id, ENTITY);
  });

  it("declares and clears an entity's chain, and switches the template matching, at 390 px", async () => {
    const t = gateway();
    const { page, context, problems } = await phonePageAs(
      browser(),
      t.url,
      operator,
      `/operator/accounts/${shop.username}`,
    );
    const chains = page.getByTestId("dlt-chains");
    await chains.getByText("no chain declared").waitFor();
    await noneLoading(page);
    await expectNoHorizontalScroll(page, "account page with DLT chains");
    await expectAccessible(page, "account page with DLT chains");

    const field = chains.getByLabel("Telemarketer IDs, in order");
    await field.fill("17-02");
    await chains.getByRole("button", { name: "Declare chain" }).click();
    await expect.poll(() => chains.getByRole("alert").textContent()).toContain("is not a telemarketer ID");
    await field.fill("1702000000000000011, 1702000000000000012");
    await chains.getByRole("button", { name: "Declare chain" }).click();
    await chains.getByText("1702000000000000011 > 1702000000000000012 > 1702000000000000099").waitFor();
    await expectNoHorizontalScroll(page, "account page with a chain declared");

    await chains.getByRole("button", { name: `Clear the chain of ${ENTITY}` }).click();
    await chains.getByRole("button", { name: `Confirm: clear the chain of ${ENTITY}` }).click();
    await chains.getByText("no chain declared").waitFor();

    const limits = page.getByRole("form", { name: "Limits and routes" });
    expect(await limits.getByLabel("DLT template matching").inputValue()).toBe("strict");
    await limits.getByLabel("DLT template matching").selectOption("lenient");
    await limits.getByRole("button", { name: "Save limits and routes" }).click();
    await limits.getByText("Saved; it applies to the next request.").waitFor();
    const detail = await call(t, "GET", `/admin/api/accounts/${shop.username}`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
    });
    expect(detail.body.data.dlt_matching).toBe("lenient");
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);
});
