// The adaptive scores as pure functions (route-scores.ts, decision 0147): a starved connector's old
// receipts age with its route's traffic, so its few new ones show a recovery; a connector with fewer
// than MIN_RECEIPTS receipts is on trial (TRIAL_SHARE, an even split when every one is).
import { describe, expect, it } from "vitest";
import {
  MIN_RECEIPTS,
  measureRoute,
  ROUTE_HALF_LIFE,
  scoreRoute,
  TRIAL_SHARE,
} from "../../../src/delivery/carriers/route-scores.js";
import type { ConnectorOutcome } from "../../../src/domain/messages/index.js";

/** A route's history, oldest first: each step a connector and whether it delivered; one ms apart. */
function history(steps: readonly (readonly [string, boolean])[]): Map<string, ConnectorOutcome[]> {
  const rowsOf = new Map<string, ConnectorOutcome[]>();
  steps.forEach(([connector, delivered], at) => {
    const rows = rowsOf.get(connector) ?? [];
    rows.unshift({
      recipient: "919876543210",
      route: "transactional",
      status: delivered ? "delivered" : "failed",
      created_at: at,
      submitted_at: at,
      done_at: at + 1000,
    });
    rowsOf.set(connector, rows);
  });
  return rowsOf;
}

const repeat = <T>(count: number, make: (i: number) => T) => Array.from({ length: count }, (_, i) => make(i));
const route = { route: "T" as const, prefix: "91", connectors: [{ name: "a" }, { name: "b" }] };
const measured = (of: ReturnType<typeof measureRoute>, costs: Record<string, number> = {}) =>
  new Map([...of].map(([name, m]) => [name, { ...m, refusals: null, cost: costs[name] ?? null }]));

describe("adaptive route scores", () => {
  // a failed 90 % of 100 receipts while it had the traffic, then got 1 in 40 of the route's
  // messages (its explore share), each delivered: 15 of them, 600 messages.
  const starved = [
    ...repeat(100, (i) => ["a", i % 10 === 0] as const),
    ...repeat(600, (i) => (i % 40 === 39 ? (["a", true] as const) : (["b", i % 5 < 2] as const))),
  ];

  it("lets a starved connector's new receipts outweigh its old ones as the route's traffic goes on", () => {
    const a = measureRoute(route, history(starved)).get("a")!;
    expect(a.receipts).toBe(115);
    // By its own receipts alone (0.5 per 30 newer), the 15 new weigh a third: 0.40.
    expect(a.rate).toBeGreaterThan(0.55);
    // The same receipts with no route traffic between them: the old ones still outweigh.
    const packed = measureRoute(route, history(starved.filter(([name]) => name === "a"))).get("a")!;
    expect(packed.rate).toBeLessThan(0.45);
  });

  it("gives the recovered connector the larger share once its new receipts are in, and the other the larger before", () => {
    const costs = { a: 50, b: 20 };
    const before = scoreRoute(route, measured(measureRoute(route, history(starved.slice(0, 200))), costs));
    expect(before.find((v) => v.connector === "a")!.share).toBeLessThan(0.1);
    const after = scoreRoute(route, measured(measureRoute(route, history(starved)), costs));
    expect(after.find((v) => v.connector === "a")!.share).toBeGreaterThan(0.5);
    expect(after.reduce((sum, v) => sum + v.share, 0)).toBeCloseTo(1, 9);
  });

  it("counts only the route's prefix in its traffic and receipts", () => {
    const rowsOf = history(starved);
    for (const row of rowsOf.get("b")!) row.recipient = "447700900123";
    const a = measureRoute(route, rowsOf).get("a")!;
    // No route traffic between a's receipts: as if packed.
    expect(a.rate).toBeLessThan(0.45);
    expect(measureRoute(route, rowsOf).get("b")!.receipts).toBe(0);
    expect(ROUTE_HALF_LIFE).toBeGreaterThan(0);
  });

  it("splits evenly while no connector has MIN_RECEIPTS receipts, whatever they cost", () => {
    const few = history(repeat(2 * MIN_RECEIPTS - 2, (i) => [i % 2 ? "a" : "b", true] as const));
    const views = scoreRoute(route, measured(measureRoute(route, few), { a: 50, b: 20 }));
    expect(views.map((v) => v.share)).toEqual([0.5, 0.5]);
    expect(views[0]!.note).toContain(`on trial until ${MIN_RECEIPTS} receipts`);
    const none = scoreRoute(route, measured(measureRoute(route, new Map()), { a: 50, b: 20 }));
    expect(none.map((v) => v.share)).toEqual([0.5, 0.5]);
    expect(none[0]!.note).toMatch(/^no receipts yet, on trial/);
  });

  it("keeps a connector on trial between the trial share and an even split, cheaper or not, until it has MIN_RECEIPTS", () => {
    const three = { ...route, connectors: [{ name: "a" }, { name: "b" }, { name: "new" }] };
    const steps = [...repeat(100, (i) => [i % 2 ? "a" : "b", true] as const), ["new", true] as const];
    // Cheaper than both and as good as they are by its one receipt: it would take most; an even split.
    const cheap = scoreRoute(three, measured(measureRoute(route, history(steps)), { a: 50, b: 50, new: 1 }));
    expect(cheap.find((v) => v.connector === "new")!.share).toBeCloseTo(1 / 3, 9);
    expect(cheap.find((v) => v.connector === "a")!.share).toBeCloseTo(1 / 3, 9);
    // Dearer and failing its one receipt: it would get next to nothing; the trial share.
    const failing = [...steps.slice(0, -1), ["new", false] as const];
    const dear = scoreRoute(three, measured(measureRoute(route, history(failing)), { a: 1, b: 1, new: 50 }));
    expect(dear.find((v) => v.connector === "new")!.share).toBeCloseTo(TRIAL_SHARE, 9);
    expect(dear.find((v) => v.connector === "a")!.share).toBeCloseTo((1 - TRIAL_SHARE) / 2, 9);
    // Measured: its score decides.
    const measuredNew = [...steps, ...repeat(MIN_RECEIPTS, () => ["new", true] as const)];
    const later = scoreRoute(three, measured(measureRoute(route, history(measuredNew)), { a: 50, b: 50, new: 1 }));
    expect(later.find((v) => v.connector === "new")!.share).toBeGreaterThan(0.9);
  });
});
