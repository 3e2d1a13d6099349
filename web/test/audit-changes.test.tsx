// @vitest-environment happy-dom
// An audit entry's change as the Audit page writes it (console audit C9): instants in the page's
// time zone as every other time of the page, field names as labels, an empty list as "none".
import { expect, it } from "vitest";
import { Changes } from "../src/pages/Audit.js";
import { render } from "./render.js";

it("writes an entry's instants in the page's zone, its fields as labels and an empty list as none", async () => {
  const view = await render(
    <Changes
      entry={{
        before: { status: "pending", created_at: "2026-12-01T03:00:08.593Z", tm_chain: [], entity_id: null },
        after: { status: "approved", created_at: "2026-12-01T03:00:08.593Z", tm_chain: [], entity_id: "1201" },
      }}
      timeZone="Asia/Kolkata"
    />,
  );
  expect([...view.container.querySelectorAll("p")].map((p) => p.textContent)).toEqual([
    "Status: pending → approved",
    "Entity id: — → 1201",
  ]);
  view.unmount();
  const made = await render(
    <Changes
      entry={{ before: null, after: { updated_at: "2026-12-01T03:00:47.374Z", tm_chain: [] } }}
      timeZone="Asia/Kolkata"
    />,
  );
  expect([...made.container.querySelectorAll("p")].map((p) => p.textContent)).toEqual([
    "Updated at: 01 Dec 2026, 08:30:47",
    "Tm chain: none",
  ]);
  made.unmount();
});
