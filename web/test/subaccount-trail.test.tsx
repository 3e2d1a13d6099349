// @vitest-environment happy-dom
// A sub-account's place in the reader's tree, as its pages carry it in their links: read from the
// query string, written into the links of its messages, refused sends, binds and lists, and the
// way back named for the list that holds it (or, opened from there, the account's own list), the
// levels from the top, and words true at any depth. A trail no tree can have leads back to the top.
// The levels the API's answer names outrank the URL's; until it answers, a page without `via` does
// not know the depth, and a blank account is none.
import { act } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { withQuery } from "../src/api.js";
import {
  BackToTree,
  ofSubAccount,
  subaccountOf,
  TreeTrail,
  trailFrom,
  trailLink,
  trailOf,
  treeLink,
  useTrail,
  viaPath,
  wayBackOf,
} from "../src/pages/subaccount-trail.js";
import { navigate } from "../src/router.js";
import { type Rendered, render } from "./render.js";

type Read = Parameters<typeof useTrail>[0];

/** What useTrail gives a page: its trail in words once known, else "unknown". */
function TrailProbe({ read }: { read: Read }) {
  const { trail, known } = useTrail(read);
  return <p>{known ? trail.join(" › ") || "own" : "unknown"}</p>;
}

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

  it("leads back to the account's own list when its page was opened from there (back=own), and only then", async () => {
    const link = trailLink("/messages", ["mid", "leaf"], "own");
    expect(link).toBe("/messages?via=mid&subaccount=leaf&back=own");
    const query = new URL(link, "http://console").searchParams;
    expect([trailOf(query), wayBackOf(query)]).toEqual([["mid", "leaf"], "own"]);
    expect(viaPath("/messages/q1", ["mid", "leaf"], "own")).toBe("/messages/q1?via=mid&back=own");
    expect(viaPath("/messages/q1", ["mid"], "own")).toBe("/messages/q1?back=own");
    expect(trailLink("/refusals", [], "own")).toBe("/refusals");
    for (const edited of ["back=OWN", "back=", "back=holder", "back=own2", "via=mid"]) {
      expect(wayBackOf(new URLSearchParams(edited)), edited).toBe("holder");
    }
    rendered = await render(<BackToTree trail={["mid", "leaf"]} wayBack="own" />);
    const own = rendered.container.querySelector("a");
    expect(own?.textContent).toBe("leaf's sub-accounts");
    expect(own?.getAttribute("href")).toBe("/subaccounts?via=mid&subaccount=leaf");
  });

  it("reads a blank account as none: the reader's own page", () => {
    expect(subaccountOf(new URLSearchParams("subaccount=%20%20"))).toBe("");
    expect(subaccountOf(new URLSearchParams("via=mid&subaccount="))).toBe("");
    expect(subaccountOf(new URLSearchParams("subaccount=%20leaf%20"))).toBe("leaf");
  });

  it("places the account by the levels the API's answer names, over the URL's, and waits for them without `via`", async () => {
    const pending: Read = { isError: false };
    const told = (via: string[]): Read => ({ data: { subaccount_via: via }, isError: false });
    const shown = async (url: string, ...reads: Read[]) => {
      navigate(url);
      const seen: string[] = [];
      rendered = await render(<TrailProbe read={reads[0] ?? pending} />);
      seen.push(rendered.container.textContent ?? "");
      for (const read of reads.slice(1)) {
        await act(async () => rendered?.root.render(<TrailProbe read={read} />));
        seen.push(rendered.container.textContent ?? "");
      }
      rendered.unmount();
      rendered = undefined;
      return seen;
    };
    // Named alone: unknown until the answer; its levels kept while the next page loads.
    expect(await shown("/messages?subaccount=leaf", pending, told(["mid"]), pending)).toEqual([
      "unknown",
      "mid › leaf",
      "mid › leaf",
    ]);
    expect(await shown("/messages?subaccount=mid", told([]))).toEqual(["mid"]);
    // A `via` the console wrote is shown at once; the answer's levels win where they differ.
    expect(await shown("/refusals?via=other&subaccount=leaf", pending, told(["mid"]))).toEqual([
      "other › leaf",
      "mid › leaf",
    ]);
    // A `via` no tree has says nothing of the depth; a failed read keeps the URL's trail.
    expect(await shown("/refusals?via=&via=mid&subaccount=leaf", pending)).toEqual(["unknown"]);
    expect(await shown("/smpp?subaccount=elsewhere", { isError: true })).toEqual(["elsewhere"]);
    expect(await shown("/messages?subaccount=%20%20", pending)).toEqual(["own"]);
  });

  it("says 'your sub-account' only of one of the reader's own, and whose it is below of a deeper one", () => {
    expect(ofSubAccount(["mid"], "messages")).toBe("Your sub-account mid's messages");
    expect(ofSubAccount(["mid", "leaf"], "refused sends")).toBe("leaf's refused sends (a sub-account of mid)");
    expect(ofSubAccount(["mid", "leaf", "great"], "messages")).toBe("great's messages (a sub-account of leaf)");
  });

  it("shows the levels from the top, each a link to its list, and the page it is on last", async () => {
    rendered = await render(<TreeTrail trail={["mid", "leaf"]} page="messages" />);
    const nav = rendered.container.querySelector("nav");
    expect(nav?.textContent).toBe("Your sub-accounts › mid › leaf › messages");
    expect([...(nav?.querySelectorAll("a") ?? [])].map((a) => [a.textContent, a.getAttribute("href")])).toEqual([
      ["Your sub-accounts", "/subaccounts"],
      ["mid", "/subaccounts?subaccount=mid"],
      ["leaf", "/subaccounts?via=mid&subaccount=leaf"],
    ]);
    expect(nav?.querySelector("[aria-current=page]")?.textContent).toBe("messages");
    rendered.unmount();
    rendered = await render(<TreeTrail trail={["mid", "leaf"]} />);
    const list = rendered.container.querySelector("nav");
    expect(list?.textContent).toBe("Your sub-accounts › mid › leaf");
    expect(list?.querySelectorAll("a")).toHaveLength(2);
    expect(list?.querySelector("[aria-current=page]")?.textContent).toBe("leaf");
  });
});
