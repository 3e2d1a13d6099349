// The router's choices (route code before *, longest prefix, weights, standbys, health) and the
// health tracker's circuit breaker, with in-memory connectors.
import { describe, expect, it } from "vitest";
import type { RoutingRule } from "../../../src/delivery/carriers/definitions.js";
import { HealthTracker, RECENT_SUBMITS } from "../../../src/delivery/carriers/health.js";
import type { Connector, SubmitResult } from "../../../src/delivery/dispatch/connector.js";
import { type Plan, Router, routeCodeOf } from "../../../src/delivery/dispatch/router.js";

const connector = (name: string, channel = "sms"): Connector => ({
  name,
  channel,
  submit: async () => [],
  onReports: () => undefined,
});

const names = (plan: Plan) => (plan.ok ? plan.connectors.map((c) => c.name) : plan.code);
const sms = (route: string, recipient = "9876543210") => ({ channel: "sms", route, recipient });

describe("router", () => {
  const all = ["simulator", "a", "b", "c", "intl"].map((name) => connector(name));
  const voice = connector("voice-simulator", "voice");
  const email = connector("email-simulator", "email");
  const routes: RoutingRule[] = [
    { route: "T", prefix: "", connectors: [{ name: "a", weight: 1 }] },
    { route: "T", prefix: "9198", connectors: [{ name: "b", weight: 1 }] },
    { route: "*", prefix: "9198", connectors: [{ name: "c", weight: 1 }] },
    { route: "*", prefix: "", connectors: [{ name: "simulator", weight: 1 }] },
    { route: "I", prefix: "1", connectors: [{ name: "intl", weight: 1 }] },
  ];
  const router = new Router([...all, voice, email], { routes });

  it("takes the message's own route code before *, then the longest prefix", () => {
    expect(names(router.plan(sms("transactional", "9876543210")))).toEqual(["b"]);
    expect(names(router.plan(sms("transactional", "9776543210")))).toEqual(["a"]);
    expect(names(router.plan(sms("promotional", "9876543210")))).toEqual(["c"]);
    expect(names(router.plan(sms("promotional", "9776543210")))).toEqual(["simulator"]);
    expect(names(router.plan(sms("international", "14155550100")))).toEqual(["intl"]);
    // An international number no I route covers falls to *.
    expect(names(router.plan(sms("international", "447700900123")))).toEqual(["simulator"]);
    // A 10-digit international number (Singapore) is not taken for an Indian one.
    const singapore = new Router(all, {
      routes: [{ route: "*", prefix: "65", connectors: [{ name: "intl", weight: 1 }] }],
    });
    expect(names(singapore.plan(sms("international", "6591234567")))).toEqual(["intl"]);
    expect(names(singapore.plan(sms("transactional", "6591234567")))).toBe("no_route");
  });

  it("sends other channels to their connector, and voice by V routes only", () => {
    expect(names(router.plan({ channel: "email", route: "", recipient: "a@b.c" }))).toEqual(["email-simulator"]);
    expect(names(router.plan({ channel: "voice", route: "voice", recipient: "9876543210" }))).toEqual([
      "voice-simulator",
    ]);
    expect(names(router.plan({ channel: "whatsapp", route: "", recipient: "x" }))).toBe("no_route");
  });

  it("names the route codes as the spec does", () => {
    expect(
      ["transactional", "promotional", "promotional_sender", "international", ""].map((route) =>
        routeCodeOf({ channel: "sms", route }),
      ),
    ).toEqual(["T", "P", "PS", "I", ""]);
    expect(routeCodeOf({ channel: "voice", route: "voice" })).toBe("V");
  });

  it("sends SMS to the simulator while no SMS route exists, and fails them with no_route once one does", () => {
    expect(names(new Router(all).plan(sms("transactional")))).toEqual(["simulator"]);
    const narrow = new Router(all, { routes: [{ route: "P", prefix: "91", connectors: [{ name: "a", weight: 1 }] }] });
    const plan = narrow.plan(sms("transactional"));
    expect(plan).toMatchObject({ ok: false, retryable: false, code: "no_route" });
    expect(plan.ok ? "" : plan.message).toContain("T and number 919876543210");
  });

  it("shares by weight exactly, with the rest of the list as failover and standbys last", () => {
    const weighted = new Router(all, {
      routes: [
        {
          route: "T",
          prefix: "",
          connectors: [
            { name: "c", weight: 0 },
            { name: "a", weight: 5 },
            { name: "b", weight: 2 },
          ],
        },
      ],
    });
    const firsts: string[] = [];
    for (let i = 0; i < 70; i++) {
      const plan = names(weighted.plan(sms("transactional"))) as string[];
      firsts.push(plan[0]!);
      expect(plan.slice(1)).toEqual(plan[0] === "a" ? ["b", "c"] : ["a", "c"]);
    }
    expect(firsts.filter((n) => n === "a").length).toBe(50);
    expect(firsts.filter((n) => n === "b").length).toBe(20);
    // Spread, not 50 then 20: never more than 3 a in a row with 5:2.
    expect(firsts.join("")).not.toMatch(/a{4}/);
  });

  it("leaves out connectors that are down, uses standbys when every weighted one is, and waits when all are", () => {
    const down = new Set<string>();
    const guarded = new Router(all, {
      routes: [
        {
          route: "T",
          prefix: "",
          connectors: [
            { name: "a", weight: 1 },
            { name: "b", weight: 1 },
            { name: "c", weight: 0 },
          ],
        },
      ],
      isUp: (name) => !down.has(name),
    });
    down.add("a");
    for (let i = 0; i < 4; i++) expect(names(guarded.plan(sms("transactional")))).toEqual(["b", "c"]);
    down.add("b");
    expect(names(guarded.plan(sms("transactional")))).toEqual(["c"]);
    down.add("c");
    expect(guarded.plan(sms("transactional"))).toMatchObject({ ok: false, retryable: true, code: "connectors_down" });
  });
});

describe("health tracker", () => {
  const fail = (code = "http_503", retryable = true): SubmitResult => ({ ok: false, retryable, code, message: code });
  const ok: SubmitResult = { ok: true, upstreamId: "x" };

  it("opens after the threshold of retryable failures in a row, for the cool-down, and closes on a success", () => {
    let now = 1_000_000;
    const tracker = new HealthTracker("agg", "http-sms", undefined, {
      threshold: 3,
      cooldownMs: 10_000,
      now: () => now,
    });
    tracker.observe([fail(), fail(), ok, fail(), fail()]);
    expect(tracker.isUp()).toBe(true);
    // Refusals for good and deferrals say nothing about the carrier being down.
    tracker.observe([fail("rejected", false), { ok: false, retryable: true, code: "deferred", message: "" }]);
    expect(tracker.isUp()).toBe(true);
    tracker.observe([fail()]);
    expect(tracker.isUp()).toBe(false);
    expect(tracker.snapshot()).toMatchObject({
      state: "down",
      results: { ok: 1, retryable: 5, failed: 1, deferred: 1 },
      last_error: { code: "http_503" },
      retry_at: new Date(now + 10_000).toISOString(),
    });
    now += 10_001;
    expect(tracker.isUp()).toBe(true);
    // Half open: one more failure opens it again at once, one success closes it.
    tracker.observe([fail()]);
    expect(tracker.isUp()).toBe(false);
    now += 10_001;
    tracker.observe([ok]);
    tracker.observe([fail()]);
    expect(tracker.isUp()).toBe(true);
  });

  it("counts the refused share of the last RECENT_SUBMITS answered submits, deferrals aside", () => {
    const tracker = new HealthTracker("agg", "http-sms");
    const deferred: SubmitResult = { ok: false, retryable: true, code: "deferred", message: "" };
    tracker.observe([fail(), fail("rejected", false), ok, deferred]);
    expect(tracker.snapshot().recent).toEqual({ submits: 3, refused: 2 });
    // A carrier that refused half of a full window and then recovered: the refusals slide out.
    tracker.observe(Array.from({ length: RECENT_SUBMITS }, (_, i) => (i % 2 ? ok : fail())));
    expect(tracker.snapshot().recent).toEqual({ submits: RECENT_SUBMITS, refused: RECENT_SUBMITS / 2 });
    tracker.observe(Array.from({ length: RECENT_SUBMITS - 10 }, () => ok));
    expect(tracker.snapshot().recent).toEqual({ submits: RECENT_SUBMITS, refused: 5 });
    tracker.observe(Array.from({ length: 10 }, () => ok));
    expect(tracker.snapshot().recent).toEqual({ submits: RECENT_SUBMITS, refused: 0 });
    // The lifetime counts stay.
    expect(tracker.snapshot().results).toMatchObject({
      ok: 1 + RECENT_SUBMITS / 2 + RECENT_SUBMITS,
      retryable: 1 + RECENT_SUBMITS / 2,
    });
  });

  it("says once that a connector is back when a submit succeeds after its circuit opened, not at a half-open trial", () => {
    let now = 1_000_000;
    const tracker = new HealthTracker("agg", "http-sms", undefined, {
      threshold: 2,
      cooldownMs: 10_000,
      now: () => now,
    });
    tracker.observe([ok, fail(), ok]);
    expect(tracker.takeRecovery()).toBe(false);
    tracker.observe([fail(), fail()]);
    expect(tracker.isUp()).toBe(false);
    now += 10_001;
    // Half open: up for a trial, not back.
    expect(tracker.isUp()).toBe(true);
    expect(tracker.takeRecovery()).toBe(false);
    tracker.observe([fail()]);
    now += 10_001;
    tracker.observe([ok]);
    expect(tracker.takeRecovery()).toBe(true);
    expect(tracker.takeRecovery()).toBe(false);
    tracker.observe([ok]);
    expect(tracker.takeRecovery()).toBe(false);
  });

  it("takes the connector's own state: down with no bind, degraded with some", () => {
    let bound = 0;
    const tracker = new HealthTracker("smsc", "smpp", () => ({
      state: bound === 0 ? "down" : bound < 2 ? "degraded" : "up",
      reason: bound < 2 ? "bind refused: ESME_RBINDFAIL" : null,
      sessions: { total: 2, bound, outstanding: 0, queued: 0 },
    }));
    expect(tracker.isUp()).toBe(false);
    bound = 1;
    expect(tracker.snapshot()).toMatchObject({ state: "degraded", reason: "bind refused: ESME_RBINDFAIL" });
    expect(tracker.isUp()).toBe(true);
    bound = 2;
    expect(tracker.snapshot()).toMatchObject({ state: "up", reason: null, sessions: { bound: 2 } });
  });
});
