// The operator's DND registry page in a real browser at 390 px (a phone): a number looked up,
// numbers added and removed (with a confirmation), a CSV file imported with its refused line
// listed, and the registry replaced by a file — each checked against the operator API, with axe
// and no sideways scroll.
import { beforeAll, expect, it } from "vitest";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  noneLoading,
  phonePageAs,
  useBrowser,
} from "../../helpers/browser.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";

describeInBrowser("console in the browser: the DND registry", () => {
  const gateway = useTestGateway("sqlite");
  const browser = useBrowser();
  let operator: TestAccount;

  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
  });

  const registry = async () => {
    const answer = await call(gateway(), "GET", "/admin/api/dnd", {
      headers: { authorization: `Bearer ${operator.apiKey}` },
    });
    return answer.body.data.count as number;
  };

  it("looks up, adds, imports, removes and replaces numbers, at 390 px", async () => {
    const t = gateway();
    const { page, context, problems } = await phonePageAs(browser(), t.url, operator, "/operator/dnd");
    const count = page.getByTestId("dnd-count");
    await expect.poll(() => count.textContent()).toContain("0 numbers on the registry");
    await noneLoading(page);
    await expectNoHorizontalScroll(page, "DND registry");
    await expectAccessible(page, "DND registry");

    const lookup = page.getByRole("form", { name: "Look up a number" });
    await lookup.getByLabel("Mobile number").fill("+919876543210");
    await lookup.getByRole("button", { name: "Look up" }).click();
    await expect
      .poll(() => page.getByTestId("dnd-lookup-answer").textContent())
      .toBe("9876543210 is not on the registry.");

    const edit = page.getByRole("form", { name: "Add or remove numbers" });
    await edit.getByLabel("Numbers").fill("9876543210, 9876543211\n9876543211");
    await edit.getByRole("button", { name: "Add to the registry" }).click();
    await edit.getByText("2 numbers added, 1 already there.").waitFor();
    await expect.poll(() => count.textContent()).toContain("2 numbers on the registry");
    // The answer above is asked again once the registry changed.
    await expect.poll(() => page.getByTestId("dnd-lookup-answer").textContent()).toBe("9876543210 is on the registry.");
    await edit.getByLabel("Numbers").fill("12345");
    await edit.getByRole("button", { name: "Add to the registry" }).click();
    await expect
      .poll(() => edit.getByRole("alert").textContent())
      .toContain("Not a 10-digit Indian mobile number: 12345");

    const upload = page.getByRole("form", { name: "Import a CSV file" });
    await upload.getByLabel("CSV file").setInputFiles({
      name: "dnd.csv",
      mimeType: "text/csv",
      buffer: Buffer.from("number,name\n9876543212,A\n+919876543213,B\n12345,C\n9876543210,D\n"),
    });
    await upload.getByRole("button", { name: "Import the file" }).click();
    const report = page.getByTestId("dnd-import-report");
    await expect
      .poll(() => report.getByRole("status").textContent())
      .toBe("2 numbers added, 1 already there or repeated, 1 line refused.");
    expect(await page.getByTestId("dnd-import-errors").locator("tbody tr").allTextContents()).toEqual(["412345"]);
    await expect.poll(() => count.textContent()).toContain("4 numbers on the registry");
    await expectNoHorizontalScroll(page, "DND registry after an import");

    await edit.getByLabel("Numbers").fill("9876543210");
    await edit.getByRole("button", { name: "Remove from the registry" }).click();
    await edit.getByRole("button", { name: "Confirm: remove 1 number" }).click();
    await edit.getByText("1 number removed.").waitFor();
    await expect
      .poll(() => page.getByTestId("dnd-lookup-answer").textContent())
      .toBe("9876543210 is not on the registry.");
    expect(await registry()).toBe(3);

    await upload.getByLabel("Replace the whole registry with this file").check();
    await upload.getByLabel("CSV file").setInputFiles({
      name: "registry.csv",
      mimeType: "text/csv",
      buffer: Buffer.from("9000000001\n"),
    });
    await upload.getByRole("button", { name: "Replace the registry" }).click();
    await expect
      .poll(() => report.getByRole("status").textContent())
      .toBe("The registry was replaced: 1 number added, 0 already there or repeated, 0 lines refused.");
    await expect.poll(() => count.textContent()).toContain("1 number on the registry");
    expect(await registry()).toBe(1);
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);
});
