// @vitest-environment happy-dom
// A sub-account's place in the reader's tree, as its pages carry it in their links: read from the
// query string, written into the links of its messages, refused sends, binds and lists, and the
// way back named for the list that holds it. A trail no tree can have leads back to the top.
import { afterEach, describe, expect, it } from "vitest";
import { withQuery } from "../src/api.js";
import { BackToTree, trailFrom, trailLink, trailOf, treeLink, viaPath } from "../src/pages/subaccount-trail.js";
import { type Rendered, render } from "./render.js";

let rendered: Rendered | undefined;
afterEach(() => {
  rendered?.unmount();
  rendered = undefined;
});

describe("a sub-account's trail", () => {
  it("reads the levels above the account from `via`, in order, and none without an account", () => {
    expect(trailOf(new URLSearchParams("via=mid&via=leaf&subaccount=great"))).toEqual(["mid", "leaf", "great"]);
    expect(trailOf(new URLSearchParams("subaccount=%20mid%20"))).toEqual(["mid"]);
    expect(trailOf(new URLSearchParams("via=mid"))).toEqual([]);
    expect(trailOf(new URLSearchParams("subaccount=&via=mid"))).toEqual([]);
  });

  it("keeps only the account of a trail no tree has", () => {
    expect(trailFrom("leaf", ["", "mid"])).toEqual(["leaf"]);
    expect(trailFrom("leaf", ["mid", "MID"])).toEqual(["leaf"]);
    expect(trailFrom("leaf", ["leaf"])).toEqual(["leaf"]);
    expect(trailFrom("leaf", ["x".repeat(65)])).toEqual(["leaf"]);
    expect(
      trailFrom(
        "leaf",
        Array.from({ length: 64 }, (_, level) => `level${level}`),
      ),
    ).toEqual(["leaf"]);
    expect(
      trailFrom(
        "leaf",
        Array.from({ length: 63 }, (_, level) => `level${level}`),
      ),
    ).toHaveLength(64);
  });

  it("writes it into the links of the account's pages, shareable and read back the same", () => {
    const trail = ["mid", "leaf & co", "great"];
    const link = trailLink("/messages", trail);
    expect(link).toBe("/messages?via=mid&via=leaf+%26+co&subaccount=great");
    expect(trailOf(new URL(link, "http://console").searchParams)).toEqual(trail);
    expect(trailLink("/refusals", ["mid"])).toBe("/refusals?subaccount=mid");
    expect(treeLink([])).toBe("/subaccounts");
    expect(treeLink(["mid", "leaf"])).toBe("/subaccounts?via=mid&subaccount=leaf");
    expect(viaPath("/messages/q1", ["mid", "leaf"])).toBe("/messages/q1?via=mid");
    expect(viaPath("/messages/q1", ["mid"])).toBe("/messages/q1");
  });

  it("adds a page's filters to the trail its path holds, and leaves empty ones out", () => {
    expect(withQuery(viaPath("/refusals", ["mid", "leaf"]), { subaccount: "leaf", code: "", recipient: "98765" })).toBe(
      "/refusals?via=mid&subaccount=leaf&recipient=98765",
    );
    expect(withQuery("/refusals?via=mid", {})).toBe("/refusals?via=mid");
  });

  it("leads back to the list that holds the account, named for whose list it is", async () => {
    rendered = await render(<BackToTree trail={["mid", "leaf", "great"]} />);
    const deep = rendered.container.querySelector("a");
    expect(deep?.textContent).toBe("leaf's sub-accounts");
    expect(deep?.getAttribute("href")).toBe("/subaccounts?via=mid&subaccount=leaf");
    rendered.unmount();
    rendered = await render(<BackToTree trail={["mid"]} />);
    const top = rendered.container.querySelector("a");
    expect(top?.textContent).toBe("Your sub-accounts");
    expect(top?.getAttribute("href")).toBe("/subaccounts");
  });
});
