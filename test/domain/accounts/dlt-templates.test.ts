import { afterAll, beforeAll, expect, it } from "vitest";
import { type Clock, systemClock } from "../../../src/base/core/clock.js";
import { isGatewayError } from "../../../src/base/core/errors.js";
import type { ApprovalStatus } from "../../../src/base/store/schema.js";
import {
  addDltEntity,
  addDltHeader,
  approvedTemplates,
  createAccount,
  createTemplate,
  getTemplate,
  isEntityWhitelisted,
  isHeaderWhitelisted,
  listDltEntities,
  listDltHeaders,
  listTemplates,
  parseRouteList,
  removeDltEntity,
  removeDltHeader,
  setTemplateStatus,
  updateAccount,
} from "../../../src/domain/accounts/index.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";

const code = (error: unknown) => (isGatewayError(error) ? error.code : error);

/** A clock the test moves by hand, so created/updated times are exact. */
function manualClock(start: number): Clock & { advance(ms: number): void } {
  let now = start;
  return {
    now: () => new Date(now),
    advance: (ms) => {
      now += ms;
    },
  };
}

describeEachEngine("DLT registrations and templates", (engine) => {
  let db: TestDatabase;
  let accountId: number;
  let otherId: number;
  let counter = 0;
  const newAccount = async () => {
    counter += 1;
    const account = await createAccount(db.store, systemClock, { username: `dlt-${counter}`, password: "password-1" });
    return account.id;
  };

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    accountId = await newAccount();
    otherId = await newAccount();
  });
  afterAll(() => db.drop());

  it("white-lists entity IDs and headers per account, upper-cased, once each", async () => {
    const clock = manualClock(Date.UTC(2026, 0, 1));
    const entity = await addDltEntity(db.store.db, clock, accountId, " 1101abc ");
    expect(entity).toMatchObject({ account_id: accountId, entity_id: "1101ABC", status: "approved" });
    expect(entity.created_at).toBe(Date.UTC(2026, 0, 1));
    const again = await addDltEntity(db.store.db, clock, accountId, "1101ABC");
    expect(again.id).toBe(entity.id);
    const header = await addDltHeader(db.store.db, clock, accountId, "swbrd");
    expect(header).toMatchObject({ header: "SWBRD", status: "approved" });
    await addDltHeader(db.store.db, clock, accountId, "ACMEIN");

    expect((await listDltEntities(db.store.db, accountId)).map((e) => e.entity_id)).toEqual(["1101ABC"]);
    expect((await listDltHeaders(db.store.db, accountId)).map((h) => h.header)).toEqual(["SWBRD", "ACMEIN"]);
    expect(await listDltHeaders(db.store.db, otherId)).toEqual([]);

    expect(await isEntityWhitelisted(db.store.db, accountId, "1101abc")).toBe(true);
    expect(await isEntityWhitelisted(db.store.db, accountId, "1101")).toBe(false);
    expect(await isEntityWhitelisted(db.store.db, otherId, "1101ABC")).toBe(false);
    expect(await isHeaderWhitelisted(db.store.db, accountId, " swbrd")).toBe(true);
    expect(await isHeaderWhitelisted(db.store.db, otherId, "SWBRD")).toBe(false);
  });

  it("forgets removed registrations, and says whether there was one", async () => {
    const id = await newAccount();
    await addDltEntity(db.store.db, systemClock, id, "9001");
    await addDltHeader(db.store.db, systemClock, id, "GONEIN");
    expect(await removeDltEntity(db.store.db, id, "9001")).toBe(true);
    expect(await removeDltEntity(db.store.db, id, "9001")).toBe(false);
    expect(await removeDltHeader(db.store.db, id, "gonein")).toBe(true);
    expect(await isEntityWhitelisted(db.store.db, id, "9001")).toBe(false);
    expect(await isHeaderWhitelisted(db.store.db, id, "GONEIN")).toBe(false);
  });

  it("counts only approved registrations as white-listed", async () => {
    const id = await newAccount();
    const entity = await addDltEntity(db.store.db, systemClock, id, "7001");
    const header = await addDltHeader(db.store.db, systemClock, id, "PENDIN");
    await db.store.db.updateTable("dlt_entities").set({ status: "pending" }).where("id", "=", entity.id).execute();
    await db.store.db.updateTable("dlt_headers").set({ status: "rejected" }).where("id", "=", header.id).execute();
    expect(await isEntityWhitelisted(db.store.db, id, "7001")).toBe(false);
    expect(await isHeaderWhitelisted(db.store.db, id, "PENDIN")).toBe(false);
    // Adding it again is the operator approving it again.
    await addDltEntity(db.store.db, systemClock, id, "7001");
    expect(await isEntityWhitelisted(db.store.db, id, "7001")).toBe(true);
  });

  it.each([
    ["entity", ""],
    ["entity", "1".repeat(31)],
    ["entity", "1101-16"],
    ["entity", "११०१"],
    ["header", "AB"],
    ["header", "ABCDEFGHIJKL"],
    ["header", "ACME IN"],
    ["header", "ACMÉIN"],
  ])("refuses the %s %j", async (kind, value) => {
    const add = kind === "entity" ? addDltEntity : addDltHeader;
    expect(code(await add(db.store.db, systemClock, accountId, value).catch((e: unknown) => e))).toBe(
      "invalid_request",
    );
  });

  it("creates templates pending unless approved at once, trimmed and checked", async () => {
    const clock = manualClock(Date.UTC(2026, 5, 1));
    const pending = await createTemplate(db.store.db, clock, accountId, {
      name: " otp ",
      content: "Your OTP is {#var#}.",
      dltTemplateId: "1107160000000000001",
      entityId: "1101abc",
      sender: "swbrd",
      notes: " ",
    });
    expect(pending).toMatchObject({
      account_id: accountId,
      name: "otp",
      content: "Your OTP is {#var#}.",
      dlt_template_id: "1107160000000000001",
      entity_id: "1101ABC",
      sender: "SWBRD",
      notes: null,
      status: "pending",
      created_at: Date.UTC(2026, 5, 1),
    });
    const approved = await createTemplate(db.store.db, clock, accountId, { name: "hi", content: "Hi", approve: true });
    expect(approved).toMatchObject({ status: "approved", dlt_template_id: null, entity_id: null, sender: null });

    clock.advance(5_000);
    const changed = await setTemplateStatus(db.store.db, clock, pending.id, "approved");
    expect(changed).toMatchObject({ id: pending.id, status: "approved", updated_at: Date.UTC(2026, 5, 1) + 5_000 });
    expect(await setTemplateStatus(db.store.db, clock, 987_654, "approved")).toBeUndefined();
    const bad = await setTemplateStatus(db.store.db, clock, pending.id, "maybe" as ApprovalStatus).catch((e) => e);
    expect(code(bad)).toBe("invalid_request");

    expect((await getTemplate(db.store.db, accountId, pending.id))?.name).toBe("otp");
    expect(await getTemplate(db.store.db, otherId, pending.id)).toBeUndefined();
  });

  it.each([
    ["a blank name", { name: "  " }],
    ["a name of 101 characters", { name: "n".repeat(101) }],
    ["empty content", { content: "" }],
    ["blank content", { content: " \n\t " }],
    ["content of 2,001 characters", { content: "x".repeat(2001) }],
    ["content with U+0000", { content: "a\u0000b" }],
    ["a DLT template ID with a space", { dltTemplateId: "1107 16" }],
    ["a DLT template ID of 31 characters", { dltTemplateId: "1".repeat(31) }],
    ["a bad entity ID", { entityId: "11-01" }],
    ["a bad sender", { sender: "AB" }],
    ["notes of 501 characters", { notes: "n".repeat(501) }],
  ])("refuses a template with %s, and writes nothing", async (_what, change) => {
    const id = await newAccount();
    const error = await createTemplate(db.store.db, systemClock, id, { name: "t", content: "c", ...change }).catch(
      (e: unknown) => e,
    );
    expect(code(error)).toBe("invalid_request");
    expect((await listTemplates(db.store.db, id, { page: 1, perPage: 10 })).total).toBe(0);
  });

  it("accepts the longest name and content", async () => {
    const id = await newAccount();
    const row = await createTemplate(db.store.db, systemClock, id, {
      name: "n".repeat(100),
      content: "c".repeat(2000),
    });
    expect(row.content).toHaveLength(2000);
  });

  it("lists an account's templates by status and page, and its approved ones for matching", async () => {
    const id = await newAccount();
    const statuses: ApprovalStatus[] = ["approved", "pending", "approved", "rejected", "approved"];
    for (const [i, status] of statuses.entries()) {
      const row = await createTemplate(db.store.db, systemClock, id, { name: `t${i}`, content: `Text ${i} {#var#}` });
      if (status !== "pending") await setTemplateStatus(db.store.db, systemClock, row.id, status);
    }
    const all = await listTemplates(db.store.db, id, { page: 1, perPage: 2 });
    expect(all.total).toBe(5);
    expect(all.rows.map((r) => r.name)).toEqual(["t0", "t1"]);
    const third = await listTemplates(db.store.db, id, { page: 3, perPage: 2 });
    expect(third.rows.map((r) => r.name)).toEqual(["t4"]);
    const approved = await listTemplates(db.store.db, id, { status: "approved", page: 1, perPage: 10 });
    expect(approved).toMatchObject({ total: 3 });
    expect(approved.rows.map((r) => r.name)).toEqual(["t0", "t2", "t4"]);
    expect((await approvedTemplates(db.store.db, id)).map((r) => r.content)).toEqual([
      "Text 0 {#var#}",
      "Text 2 {#var#}",
      "Text 4 {#var#}",
    ]);
    expect(await approvedTemplates(db.store.db, otherId)).toEqual([]);
    for (const options of [
      { page: 0, perPage: 10 },
      { page: 1, perPage: 0 },
      { page: 1, perPage: 1001 },
      { page: 1.5, perPage: 10 },
      { page: 1, perPage: 10, status: "gone" as ApprovalStatus },
    ]) {
      expect(code(await listTemplates(db.store.db, id, options).catch((e: unknown) => e))).toBe("invalid_request");
    }
  });

  it("switches DLT scrubbing, the promotional sender and the routes of an account", async () => {
    const account = await createAccount(db.store, systemClock, { username: "switches", password: "password-1" });
    expect(account).toMatchObject({ dlt_scrubbing: 1, promo_sender_enabled: 0, routes: "T,P" });
    const changed = await updateAccount(db.store, systemClock, "switches", {
      dltScrubbing: false,
      promoSenderEnabled: true,
      routes: ["I", "p", "PS", "P"],
    });
    expect(changed).toMatchObject({ dlt_scrubbing: 0, promo_sender_enabled: 1, routes: "P,PS,I" });
    for (const routes of [[], ["V"], ["T", "X"], [""]]) {
      const error = await updateAccount(db.store, systemClock, "switches", { routes }).catch((e: unknown) => e);
      expect(code(error)).toBe("invalid_request");
    }
    expect(parseRouteList(" t , PS,,i ")).toEqual(["T", "PS", "I"]);
    expect(() => parseRouteList(",")).toThrow(/at least one route/);
  });
});
