// Tracked short links (issue 40, item 6) through the real server on both engines: a send asking
// for them (v2 `shorten_urls`, bulk, legacy `shorturl=1`, the account's default) hands the
// simulator's capture file a text whose {#var#} link is SHORT_LINK_BASE/<code>, each recipient
// its own code, the template's fixed text untouched; following a code answers 302 to the original
// link and raises link_clicked once per click; clicks show in the status answer, the list, the
// message page and analytics. Expired and unknown codes answer 404; bad input is refused in each
// family's dialect; the short links' own domain must be white-listed; SHORT_LINK_BASE under an
// API or console path is refused at start.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/base/runtime/config.js";
import { receiver, until, useReceivers } from "../../domain/webhooks/receiver.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { credentials, legacy, operatorCall, pushsms, xmlSend } from "../../helpers/legacy.js";
import { FAST_SIMULATOR, keyOf, statusOf } from "../../helpers/sms.js";

const ENTITY = "1101160000000000071";
const BASE = "https://sb.in/l";
const SHORT = /https:\/\/sb\.in\/l\/([A-Za-z0-9_-]{12})/g;
const TEMPLATE = "Order {#var#} ships today. Track it at {#var#} or see https://example.com/app";
const LINK = "https://shop.example.in/o/123";
const text = (order: string, link = LINK) =>
  `Order ${order} ships today. Track it at ${link} or see https://example.com/app`;

describe("SHORT_LINK_BASE", () => {
  const load = (value: string) => () => loadConfig({ SHORT_LINK_BASE: value }, process.cwd());

  it("is refused at start under a path of the API or the console, at /, or with a query", () => {
    for (const bad of [
      "https://go.example.in/api",
      "https://go.example.in/admin/x",
      "https://go.example.in/messages",
    ]) {
      expect(load(bad), bad).toThrow(/collides with the console's or the API's routes/);
    }
    expect(load("https://go.example.in/")).toThrow(/path of its own/);
    expect(load("https://go.example.in/l?x=1")).toThrow(/no query/);
    expect(load("ftp://go.example.in/l")).toThrow(/http or https/);
    expect(loadConfig({ SHORT_LINK_BASE: "https://go.example.in/l/" }, process.cwd()).shortLinkBase).toEqual({
      url: "https://go.example.in/l",
      path: "/l",
      host: "go.example.in",
    });
  });
});

describeEachEngine("tracked short links", (engine) => {
  const captureFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "links-")), "capture.jsonl");
  const gateway = useTestGateway(engine, {
    env: {
      ...FAST_SIMULATOR,
      SIMULATOR_CAPTURE_FILE: captureFile,
      SHORT_LINK_BASE: BASE,
      SHORT_LINK_DAYS: "2",
      SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1",
      LEGACY_THROTTLE_PER_SECOND: "0",
    },
  });
  useReceivers();
  let operator: TestAccount;
  const op = (method: string, route: string, json?: unknown) => operatorCall(gateway(), operator, method, route, json);

  /** Scrubbing on, the template, the shop's links and (unless told) the short links' domain approved. */
  async function linkAccount(shortDomainApproved = true): Promise<TestAccount> {
    const account = await buildAccount(gateway(), { dltScrubbing: true, credits: { sms: 1000 } });
    const u = account.username;
    await op("POST", `/accounts/${u}/dlt/headers`, { header: "SWBRD" });
    await op("POST", `/accounts/${u}/dlt/entities`, { entity_id: ENTITY });
    await op("POST", `/accounts/${u}/templates`, { name: "t", content: TEMPLATE, entity_id: ENTITY, approve: true });
    await op("POST", `/accounts/${u}/dlt/urls`, { entity_id: ENTITY, url: "https://example.com/app" });
    await op("POST", `/accounts/${u}/dlt/urls`, { entity_id: ENTITY, url: "shop.example.in/o/" });
    if (shortDomainApproved) await op("POST", `/accounts/${u}/dlt/urls`, { entity_id: ENTITY, url: "sb.in/l/" });
    return account;
  }

  /** The text the simulator was handed for `id` (waits for the dispatcher). */
  async function captured(id: string): Promise<string> {
    let body: string | undefined;
    await until(() => {
      if (!fs.existsSync(captureFile)) return false;
      for (const line of fs.readFileSync(captureFile, "utf8").split("\n")) {
        if (line.includes(id)) body = (JSON.parse(line) as { body: string }).body;
      }
      return body !== undefined;
    });
    return body!;
  }

  const codesIn = (body: string) => [...body.matchAll(SHORT)].map((m) => m[1]!);
  const follow = (code: string, agent = "test-browser/1.0") =>
    fetch(`${gateway().url}/l/${code}`, { redirect: "manual", headers: { "user-agent": agent } });
  const send = (account: TestAccount, json: Record<string, unknown>) =>
    call(gateway(), "POST", "/api/v2/sms/send", {
      headers: keyOf(account),
      json: { sender_id: "SWBRD", route: "transactional", recipient: "9876543210", ...json },
    });

  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
  });

  it("shortens the {#var#} link per message, redirects, and raises link_clicked once per click", async () => {
    const t = gateway();
    const account = await linkAccount();
    const hooks = await receiver();
    await call(t, "PUT", "/api/v2/webhooks", { headers: keyOf(account), json: { link_clicked: hooks.url } });
    const sent = await send(account, { message: text("A17"), shorten_urls: true });
    expect(sent.status, sent.text).toBe(200);
    const id = sent.body.data.message_id as string;
    const body = await captured(id);
    const [code, ...others] = codesIn(body);
    expect(code, body).toBeDefined();
    expect(others).toEqual([]);
    expect(body).toBe(text("A17", `${BASE}/${code}`));
    expect(body).toContain("https://example.com/app");
    expect(body).not.toContain(LINK);

    for (const agent of ["phone/1", "phone/2"]) {
      const answer = await follow(code!, agent);
      expect(answer.status).toBe(302);
      expect(answer.headers.get("location")).toBe(LINK);
    }
    await until(() => hooks.received.length >= 2);
    const events = hooks.received.map((r) => JSON.parse(r.body) as Record<string, unknown>);
    expect(events.map((e) => [e.event, e.message_id, e.url, e.short_url])).toEqual([
      ["link_clicked", id, LINK, `${BASE}/${code}`],
      ["link_clicked", id, LINK, `${BASE}/${code}`],
    ]);
    expect(events.map((e) => e.user_agent)).toEqual(["phone/1", "phone/2"]);

    expect((await statusOf(t, account, id)).body.data.clicks).toBe(2);
    const broadcast = await statusOf(t, account, sent.body.data.broadcast_id);
    expect(broadcast.body.data.clicks).toEqual({
      messages_with_links: 1,
      messages_clicked: 1,
      clicks: 2,
      click_through_rate: 1,
    });
    const list = await call(t, "GET", "/api/v2/messages?limit=5", { headers: keyOf(account) });
    expect(list.body.data.find((m: { message_id: string }) => m.message_id === id).clicks).toBe(2);
    const detail = await call(t, "GET", `/api/v2/messages/${id}`, { headers: keyOf(account) });
    expect(detail.body.data.message.clicks).toBe(2);
    const clicks = detail.body.data.timeline.filter((e: { event: string }) => e.event === "click");
    expect(clicks.map((e: { detail: string }) => e.detail)).toEqual([`${LINK} (phone/1)`, `${LINK} (phone/2)`]);
    const stored = await t.db.store.db.selectFrom("link_clicks").selectAll().where("message_id", "=", id).execute();
    expect(stored).toHaveLength(2);
    // The address is kept only as an HMAC: the same visitor twice, and not the address itself.
    expect(stored[0]!.address_hash).toBe(stored[1]!.address_hash);
    expect(stored[0]!.address_hash).not.toContain("127.0.0.1");
  });

  it("shortens under the send's own template where the same text is registered for another header too", async () => {
    const account = await linkAccount(true);
    const u = account.username;
    // One text registered for two headers, the other's first: each send keeps its own.
    const twin = "Parcel {#var#} is out. Track it at {#var#}";
    await op("POST", `/accounts/${u}/sender-ids`, { sender: "OTHERH", approve: true });
    await op("POST", `/accounts/${u}/dlt/headers`, { header: "OTHERH" });
    for (const sender of ["OTHERH", "SWBRD"]) {
      const added = await op("POST", `/accounts/${u}/templates`, {
        name: sender,
        content: twin,
        entity_id: ENTITY,
        sender,
        approve: true,
      });
      expect(added.status, added.text).toBe(201);
    }
    for (const sender of ["SWBRD", "OTHERH"]) {
      const sent = await send(account, {
        sender_id: sender,
        message: `Parcel P9 is out. Track it at ${LINK}`,
        shorten_urls: true,
      });
      expect(sent.status, sent.text).toBe(200);
      const body = await captured(sent.body.data.message_id as string);
      const [code] = codesIn(body);
      expect(body, sender).toBe(`Parcel P9 is out. Track it at ${BASE}/${code}`);
    }
  });

  it("gives each recipient of a bulk send its own code and counts segments after shortening", async () => {
    const t = gateway();
    const account = await linkAccount();
    const long = "https://shop.example.in/o/12"; // 28 characters: the same length as a short link
    const bulk = await call(t, "POST", "/api/v2/sms/bulk", {
      headers: keyOf(account),
      json: {
        sender_id: "SWBRD",
        route: "transactional",
        recipients: ["9876543210", "9876543211"],
        message: text("B2", long),
        shorten_urls: true,
      },
    });
    expect(bulk.status, bulk.text).toBe(200);
    let rows: { id: string; body: string; segments: number }[] = [];
    await until(async () => {
      rows = await t.db.store.db
        .selectFrom("messages")
        .select(["id", "body", "segments"])
        .where("job_id", "=", bulk.body.data.job_id)
        .execute();
      return rows.length === 2;
    });
    const codes = rows.flatMap((row) => codesIn(row.body));
    expect(codes).toHaveLength(2);
    expect(new Set(codes).size).toBe(2);
    for (const row of rows) expect(await captured(row.id)).toBe(row.body);
    expect(rows[0]!.segments).toBe(1);
    const job = () => call(t, "GET", `/api/v2/bulk-jobs/${bulk.body.data.job_id}`, { headers: keyOf(account) });
    expect((await job()).body.data.clicks).toEqual({
      messages_with_links: 2,
      messages_clicked: 0,
      clicks: 0,
      click_through_rate: 0,
    });
    expect((await follow(codes[0]!)).headers.get("location")).toBe(long);
    expect((await job()).body.data.clicks).toMatchObject({ messages_clicked: 1, clicks: 1, click_through_rate: 0.5 });
  });

  it("shortens on legacy with shorturl=1 and by the account's default, never the template's fixed text", async () => {
    const t = gateway();
    const account = await linkAccount();
    const viaLegacy = await legacy(t, "/httpapi/send", {
      ...credentials(account),
      sender_id: "SWBRD",
      route: "T",
      phonenumber: "9876543210",
      message: text("L1"),
      shorturl: "1",
    });
    expect(viaLegacy.text).toMatch(/^\d+_\d{8}_\d+$/);
    const legacyRow = await t.db.store.db
      .selectFrom("messages")
      .select(["id", "body"])
      .where("account_id", "=", account.id)
      .executeTakeFirstOrThrow();
    expect(codesIn(legacyRow.body)).toHaveLength(1);

    const patched = await op("PATCH", `/accounts/${account.username}`, { shorten_urls: true });
    expect(patched.body.data.shorten_urls).toBe(true);
    const byDefault = await send(account, { message: text("D1") });
    const optedOut = await send(account, { message: text("D2"), shorten_urls: false });
    const bodyOf = async (id: string) =>
      (await t.db.store.db.selectFrom("messages").select("body").where("id", "=", id).executeTakeFirstOrThrow()).body;
    expect(codesIn(await bodyOf(byDefault.body.data.message_id))).toHaveLength(1);
    expect(await bodyOf(optedOut.body.data.message_id)).toBe(text("D2"));
    // The XML API never shortens, whatever the account's default.
    const xml = await xmlSend(
      t,
      pushsms(credentials(account), {
        sender: "SWBRD",
        route: "T",
        messages: [{ pno: "9876543211", msg: text("X1") }],
      }),
    );
    expect(xml.text).toMatch(/^\d+_\d{8}_\d+$/);
    const xmlRow = await t.db.store.db
      .selectFrom("messages")
      .select("body")
      .where("account_id", "=", account.id)
      .where("recipient", "=", "9876543211")
      .executeTakeFirstOrThrow();
    expect(xmlRow.body).toBe(text("X1"));
    // Only the fixed text has a link: nothing to shorten, sent as registered.
    await op("POST", `/accounts/${account.username}/templates`, {
      name: "fixed",
      content: "See https://example.com/app for {#var#}",
      entity_id: ENTITY,
      approve: true,
    });
    const fixed = await send(account, { message: "See https://example.com/app for details" });
    expect(await bodyOf(fixed.body.data.message_id)).toBe("See https://example.com/app for details");
  });

  it("refuses what it cannot shorten or read, in each family's dialect, charging nothing", async () => {
    const t = gateway();
    const account = await linkAccount(false);
    const refused = await send(account, { message: text("R1"), shorten_urls: true });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe("dlt_url_not_whitelisted");
    expect(refused.body.message ?? refused.body.error.message).toContain("SHORT_LINK_BASE");
    expect(refused.body.error.url).toBe(`${BASE}/`);
    const viaLegacy = await legacy(t, "/httpapi/send", {
      ...credentials(account),
      sender_id: "SWBRD",
      route: "T",
      phonenumber: "9876543210",
      message: text("R2"),
      shorturl: "1",
    });
    expect(viaLegacy.text).toBe("-8");
    const badFlag = await send(account, { message: text("R3"), shorten_urls: "yes" });
    expect(badFlag.status).toBe(400);
    expect(badFlag.body.error.code).toBe("invalid_request");
    const badLegacy = await legacy(t, "/httpapi/send", {
      ...credentials(account),
      sender_id: "SWBRD",
      route: "T",
      phonenumber: "9876543210",
      message: text("R4"),
      shorturl: "maybe",
    });
    expect(badLegacy.text).not.toMatch(/^\d+_\d{8}_\d+$/);
    expect(badLegacy.headers.get("x-error-message")).toContain("shorturl");
    const stored = await t.db.store.db
      .selectFrom("messages")
      .select("id")
      .where("account_id", "=", account.id)
      .execute();
    expect(stored).toEqual([]);
  });

  it("answers 404 for an expired code, an unknown one and one that cannot be a code", async () => {
    const t = gateway();
    const account = await linkAccount();
    const sent = await send(account, { message: text("E1"), shorten_urls: true });
    const [code] = codesIn(await captured(sent.body.data.message_id));
    expect((await follow(code!)).status).toBe(302);
    await t.db.store.db.updateTable("short_links").set({ expires_at: 1 }).where("code", "=", code!).execute();
    expect((await follow(code!)).status).toBe(404);
    for (const bad of ["AAAAAAAAAAAA", "short", "x".repeat(200), "%27%20or%201%3D1"]) {
      const answer = await follow(bad);
      expect(answer.status, bad).toBe(404);
      expect(await answer.text()).toContain("does not exist or has expired");
    }
    const clicks = await t.db.store.db.selectFrom("link_clicks").select("id").where("code", "=", code!).execute();
    expect(clicks).toHaveLength(1);

    // A storm of bad codes: malformed ones are never read, an unknown one once (then remembered).
    const db = t.db.store.db;
    const selectFrom = db.selectFrom.bind(db);
    let reads = 0;
    db.selectFrom = ((from: Parameters<typeof selectFrom>[0]) => {
      if (String(from) === "short_links") reads += 1;
      return selectFrom(from);
    }) as typeof db.selectFrom;
    try {
      const unknown = "BBBBBBBBBBBB";
      const answers = await Promise.all([
        ...Array.from({ length: 100 }, (_, i) => follow(`bad-${i}`)),
        ...Array.from({ length: 5 }, () => follow(unknown)),
      ]);
      expect(answers.every((answer) => answer.status === 404)).toBe(true);
      for (let i = 0; i < 20; i++) expect((await follow(unknown)).status).toBe(404);
    } finally {
      delete (db as { selectFrom?: unknown }).selectFrom;
    }
    // The five concurrent first requests for the unknown code may each read it; the 20 after do not.
    expect(reads).toBeGreaterThanOrEqual(1);
    expect(reads).toBeLessThanOrEqual(5);
  });
});
