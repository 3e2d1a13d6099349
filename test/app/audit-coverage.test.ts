// Changes that an earlier audit found missing from the audit log (docs/notes: audit-support F1,
// F3, F6, F7, F9, F17), through the real server on both engines: each writes one entry naming
// who acted, what, before and after; a call that changes nothing writes none.
import { beforeAll, expect, it } from "vitest";
import { describeEachEngine } from "../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../helpers/gateway.js";

const bearer = (account: TestAccount) => ({ authorization: `Bearer ${account.apiKey}` });

type Entry = Record<string, unknown>;

describeEachEngine("audit entries of operator and account changes", (engine) => {
  const gateway = useTestGateway(engine, { env: { LOGIN_LOCK_THRESHOLD: "2", LOGIN_LOCK_ADDRESSES: "0" } });
  let operator: TestAccount;

  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
  });

  const op = (method: string, path: string, json?: unknown) =>
    call(gateway(), method, `/admin/api${path}`, {
      headers: bearer(operator),
      ...(json === undefined ? {} : { json }),
    });

  /** The entries after `seq`, oldest first. */
  async function entriesAfter(seq: number, query = ""): Promise<Entry[]> {
    const answer = await op("GET", `/audit?limit=100${query}`);
    expect(answer.status, answer.text).toBe(200);
    return (answer.body.data as Entry[]).filter((entry) => Number(entry.seq) > seq).reverse();
  }

  async function head(): Promise<number> {
    const answer = await op("GET", "/audit?limit=1");
    return Number((answer.body.data as Entry[])[0]?.seq ?? 0);
  }

  const lockedOut = async (t: TestGateway, account: TestAccount) => {
    for (const attempt of [1, 2]) {
      await call(t, "GET", `/api/getcredits?username=${account.username}&password=wrong${attempt}`);
    }
    const refused = await call(t, "GET", `/api/getcredits?username=${account.username}&password=${account.password}`);
    expect(refused.text).toBe("-16");
  };

  it("records login locks lifted by PATCH {unlock}, naming each lock; a clear of none writes nothing", async () => {
    const t = gateway();
    const shop = await buildAccount(t);
    await lockedOut(t, shop);
    const until = t.clock.now().getTime() + 600_000;
    // A team user's lock (kept as "<login> <address>") and the account's own.
    await t.db.store.db
      .insertInto("login_failures")
      .values({ account_id: shop.id, address: "sue 192.0.2.9", failures: 0, locked_until: until, updated_at: 1 })
      .execute();
    await t.db.store.db.updateTable("accounts").set({ locked_until: until }).where("id", "=", shop.id).execute();
    const seq = await head();

    const unlocked = await op("PATCH", `/accounts/${shop.username}`, { unlock: true });
    expect(unlocked.status, unlocked.text).toBe(200);
    const credits = await call(t, "GET", `/api/getcredits?username=${shop.username}&password=${shop.password}`);
    expect(credits.text).not.toBe("-16");
    const [entry, ...rest] = await entriesAfter(seq);
    expect(rest).toEqual([]);
    const iso = new Date(until).toISOString();
    expect(entry).toMatchObject({
      action: "login_locks.clear",
      actor: operator.username,
      channel: "operator_api",
      account: shop.username,
      target: `login locks of ${shop.username}`,
      before: {
        locks: [
          { login: shop.username, scope: "account", address: null, locked_until: iso },
          { login: "sue", scope: "address", address: "192.0.2.9", locked_until: iso },
          { login: shop.username, scope: "address", address: "127.0.0.1", locked_until: expect.any(String) },
        ],
      },
      after: { cleared: 3 },
    });

    // Nothing locked: no entry, from either route.
    expect((await op("PATCH", `/accounts/${shop.username}`, { unlock: true })).status).toBe(200);
    expect((await op("DELETE", `/accounts/${shop.username}/login-locks`)).status).toBe(200);
    expect(await entriesAfter(seq)).toHaveLength(1);

    // PATCH with a setting and unlock: the setting's entry and the clear's.
    await lockedOut(t, shop);
    const both = await op("PATCH", `/accounts/${shop.username}`, { unlock: true, flood_limit: 7 });
    expect(both.status, both.text).toBe(200);
    expect((await entriesAfter(seq)).slice(1).map((e) => [e.action, e.before, e.after])).toEqual([
      ["account.update", { flood_limit: 0 }, { flood_limit: 7 }],
      [
        "login_locks.clear",
        { locks: [{ login: shop.username, scope: "address", address: "127.0.0.1", locked_until: expect.any(String) }] },
        { cleared: 1 },
      ],
    ]);

    // A refused change lifts no lock and writes nothing.
    await lockedOut(t, shop);
    const mark = await head();
    const bad = await op("PATCH", `/accounts/${shop.username}`, { unlock: true, time_zone: "Mars/Olympus" });
    expect(bad.status).toBe(400);
    expect(await entriesAfter(mark)).toEqual([]);
    const still = await call(t, "GET", `/api/getcredits?username=${shop.username}&password=${shop.password}`);
    expect(still.text).toBe("-16");
  });

  it("names the locks DELETE …/login-locks lifts", async () => {
    const t = gateway();
    const shop = await buildAccount(t);
    await lockedOut(t, shop);
    const seq = await head();
    const cleared = await op("DELETE", `/accounts/${shop.username}/login-locks?address=127.0.0.1`);
    expect(cleared.body.data).toMatchObject({ cleared: 1 });
    expect(await entriesAfter(seq)).toMatchObject([
      {
        action: "login_locks.clear",
        target: `login lock of ${shop.username} from 127.0.0.1`,
        before: { locks: [{ login: shop.username, scope: "address", address: "127.0.0.1" }] },
        after: { cleared: 1 },
      },
    ]);
  });

  it("records DND numbers added, removed and imported (a replace with what it emptied); a call that changes nothing writes nothing", async () => {
    const t = gateway();
    const csv = (text: string, query = "") =>
      call(t, "POST", `/admin/api/dnd/import${query}`, {
        headers: { ...bearer(operator), "content-type": "text/csv" },
        body: text,
      });
    const seq = await head();
    const added = await op("POST", "/dnd", { numbers: ["9811100099", "+91 98111 00098"] });
    expect(added.body.data).toMatchObject({ added: 2 });
    expect((await op("POST", "/dnd", { numbers: ["9811100099"] })).body.data).toMatchObject({ added: 0 });
    const removed = await op("DELETE", "/dnd", { numbers: ["9811100099", "9811100097"] });
    expect(removed.body.data).toMatchObject({ removed: 1 });
    expect((await op("DELETE", "/dnd", { numbers: ["9811100099"] })).body.data).toMatchObject({ removed: 0 });
    const numbers = Array.from({ length: 25 }, (_, i) => String(9_811_200_000 + i));
    const imported = await csv(`number\n${numbers.join("\n")}\n9811100098\nnot-a-number\n`);
    expect(imported.status, imported.text).toBe(200);
    expect(await csv("number\n9811100098\n")).toMatchObject({ status: 200 });
    const emptied = await csv("number\n", "?replace=true");
    expect(emptied.status, emptied.text).toBe(200);
    expect((await csv("number\n", "?replace=true")).status).toBe(200);
    const bad = await op("POST", "/dnd", { numbers: ["12"] });
    expect(bad.status).toBe(400);

    const log = await entriesAfter(seq);
    for (const entry of log) {
      expect(entry).toMatchObject({ actor: operator.username, channel: "operator_api", target: "DND registry" });
      expect(entry.account).toBeNull();
    }
    const sorted = [...numbers, "9811100098"].sort();
    expect(log.map((entry) => [entry.action, entry.before, entry.after])).toEqual([
      ["dnd.add", null, { added: 2, numbers: ["9811100099", "9811100098"] }],
      ["dnd.remove", { removed: 1, numbers: ["9811100099"] }, null],
      ["dnd.import", null, { replace: false, added: 25, duplicates: 1, invalid: 1, numbers: numbers.slice(0, 20) }],
      [
        "dnd.import",
        { count: 26, numbers: sorted.slice(0, 20) },
        { replace: true, added: 0, duplicates: 0, invalid: 0, numbers: [] },
      ],
    ]);
  });

  it("records nothing for an import that stopped on a malformed line: it added nothing", async () => {
    const t = gateway();
    // Far past the 5,000 numbers of a statement: the import is whole or not at all.
    const numbers = Array.from({ length: 30_000 }, (_, i) => String(9_700_000_000 + i));
    const seq = await head();
    const stopped = await call(t, "POST", "/admin/api/dnd/import", {
      headers: { ...bearer(operator), "content-type": "text/csv" },
      body: `${numbers.join("\n")}\n"9811,unclosed\n`,
    });
    expect(stopped.status, stopped.text).toBe(400);
    expect(stopped.body.error.added).toBe(0);
    expect(await entriesAfter(seq)).toEqual([]);
  });

  it("records caller numbers asked for by the account, approved, added and removed by the operator", async () => {
    const t = gateway();
    const shop = await buildAccount(t);
    const seq = await head();
    const ask = () =>
      call(t, "POST", "/api/v2/voice/caller-ids", { headers: bearer(shop), json: { number: "080 4711 0002" } });
    expect((await ask()).status).toBe(201);
    expect((await ask()).status).toBe(200);
    const callers = `/accounts/${shop.username}/voice/caller-ids`;
    expect((await op("POST", callers, { number: "+918047110002" })).status).toBe(200);
    expect((await op("POST", callers, { number: "080 4711 0002" })).status).toBe(200);
    const added = await op("POST", callers, { number: "+918047110003" });
    expect(added.status, added.text).toBe(201);
    expect((await op("DELETE", `${callers}/%2B918047110003`)).status).toBe(200);
    expect((await op("DELETE", `${callers}/%2B918047110003`)).status).toBe(404);
    expect((await op("POST", callers, { number: "12" })).status).toBe(400);

    const log = await entriesAfter(seq);
    const first = (log[0]?.target as string).replace(/^voice caller ID /, "");
    const second = String(added.body.data.id);
    const pending = { number: "+918047110002", status: "pending", rejection_reason: null };
    const approved = (number: string) => ({ number, status: "approved", rejection_reason: null });
    expect(
      log.map((entry) => [entry.action, entry.actor, entry.channel, entry.target, entry.before, entry.after]),
    ).toEqual([
      ["voice_caller_id.request", shop.username, "api", `voice caller ID ${first}`, null, pending],
      [
        "voice_caller_id.approve",
        operator.username,
        "operator_api",
        `voice caller ID ${first}`,
        { status: "pending" },
        approved("+918047110002"),
      ],
      [
        "voice_caller_id.add",
        operator.username,
        "operator_api",
        `voice caller ID ${second}`,
        null,
        approved("+918047110003"),
      ],
      [
        "voice_caller_id.remove",
        operator.username,
        "operator_api",
        `voice caller ID ${second}`,
        approved("+918047110003"),
        null,
      ],
    ]);
    for (const entry of log) expect(entry.account).toBe(shop.username);
  });

  it("records a verify prefix allowed and guarded again, and verify settings changed", async () => {
    const t = gateway();
    const shop = await buildAccount(t);
    const blockedUntil = t.clock.now().getTime() + 3_600_000;
    await t.db.store.db
      .insertInto("verify_prefixes")
      .values({
        account_id: shop.id,
        prefix: "919876",
        blocked_at: t.clock.now().getTime(),
        blocked_until: blockedUntil,
        samples: 40,
        conversion: 0.1,
        alert_raised_at: null,
        allowed_at: null,
      })
      .execute();
    const seq = await head();
    const prefix = (digits: string, allowed: boolean) =>
      op("PUT", `/accounts/${shop.username}/verify/prefixes/${digits}`, { allowed });
    expect((await prefix("919876", true)).status).toBe(200);
    expect((await prefix("919876", true)).status).toBe(200);
    expect((await prefix("919876", false)).status).toBe(200);
    expect((await prefix("919876", false)).status).toBe(200);
    expect((await prefix("447700", true)).status).toBe(200);
    expect((await prefix("91-98", true)).status).toBe(400);
    const settings = { verify_sender_id: "SWBRD", verify_channels: ["sms", "voice"] };
    const put = await op("PUT", `/accounts/${shop.username}/verify`, settings);
    expect(put.status, put.text).toBe(200);
    expect((await op("PUT", `/accounts/${shop.username}/verify`, settings)).status).toBe(200);
    expect((await op("PUT", `/accounts/${shop.username}/verify`, { verify_channels: ["bogus"] })).status).toBe(400);

    const log = await entriesAfter(seq);
    for (const entry of log) {
      expect(entry).toMatchObject({ actor: operator.username, channel: "operator_api", account: shop.username });
    }
    expect(log.map((entry) => [entry.action, entry.target, entry.before, entry.after])).toEqual([
      [
        "verify_prefix.allow",
        `verify prefix 919876 of ${shop.username}`,
        { state: "blocked", blocked_until: new Date(blockedUntil).toISOString().replace(/\.\d{3}Z$/, "Z") },
        { state: "allowed" },
      ],
      [
        "verify_prefix.guard",
        `verify prefix 919876 of ${shop.username}`,
        { state: "allowed", blocked_until: null },
        { state: "unblocked" },
      ],
      [
        "verify_prefix.allow",
        `verify prefix 447700 of ${shop.username}`,
        { state: "unblocked", blocked_until: null },
        { state: "allowed" },
      ],
      [
        "verify_settings.change",
        `verify settings of ${shop.username}`,
        { verify_sender_id: null, verify_channels: ["sms", "whatsapp", "voice"] },
        { verify_sender_id: "SWBRD", verify_channels: ["sms", "voice"] },
      ],
    ]);
  });

  it("records an account's WhatsApp connection changed (never its token) and a template marked test-only", async () => {
    const t = gateway();
    const shop = await buildAccount(t);
    const other = await buildAccount(t);
    const whatsapp = (account: TestAccount, json: unknown) => op("PUT", `/accounts/${account.username}/whatsapp`, json);
    const seq = await head();
    const phone = String(400_000_000_000 + shop.id);
    const connection = {
      enabled: true,
      connector: "simulator",
      phone_number_id: phone,
      waba_id: "400000000001",
      access_token: "EAAB-first-token",
    };
    expect((await whatsapp(shop, connection)).status).toBe(200);
    expect((await whatsapp(shop, connection)).status).toBe(200);
    expect((await whatsapp(shop, { test_numbers: ["919876543210", "+91 98765 00001"] })).status).toBe(200);
    expect((await whatsapp(shop, { access_token: "EAAB-new-token" })).status).toBe(200);
    expect((await whatsapp(other, { phone_number_id: phone })).status).toBe(409);
    expect((await whatsapp(shop, { test_numbers: ["12"] })).status).toBe(400);
    const synced = await op("POST", `/accounts/${shop.username}/whatsapp/templates/sync`);
    expect(synced.status, synced.text).toBe(200);
    const name = (synced.body.data as { name: string }[])[0]!.name;
    const mark = (testOnly: boolean) =>
      op("PUT", `/accounts/${shop.username}/whatsapp/templates/${name}`, { test_only: testOnly });
    expect((await mark(true)).status).toBe(200);
    expect((await mark(true)).status).toBe(200);
    expect((await op("PUT", `/accounts/${shop.username}/whatsapp/templates/nope`, { test_only: true })).status).toBe(
      404,
    );

    const log = await entriesAfter(seq);
    expect(JSON.stringify(log)).not.toMatch(/EAAB/);
    for (const entry of log) {
      expect(entry).toMatchObject({ actor: operator.username, channel: "operator_api", account: shop.username });
    }
    const target = `WhatsApp settings of ${shop.username}`;
    expect(log.map((entry) => [entry.action, entry.target, entry.before, entry.after])).toEqual([
      [
        "whatsapp.update",
        target,
        { enabled: false, connector: null, phone_number_id: null, waba_id: null, access_token_set: false },
        {
          enabled: true,
          connector: "simulator",
          phone_number_id: phone,
          waba_id: "400000000001",
          access_token_set: true,
          access_token_changed: true,
        },
      ],
      ["whatsapp.update", target, { test_numbers: [] }, { test_numbers: ["919876543210", "919876500001"] }],
      ["whatsapp.update", target, {}, { access_token_changed: true }],
      [
        "whatsapp_template.test_only",
        `WhatsApp template ${name} of ${shop.username}`,
        { test_only: false, languages: expect.any(Number) },
        { test_only: true, languages: expect.any(Number) },
      ],
    ]);
  });

  it("records the account's own requests for DLT registrations, once each", async () => {
    const t = gateway();
    const shop = await buildAccount(t);
    const ask = (path: string, json: unknown) =>
      call(t, "POST", `/api/v2/dlt/${path}`, { headers: bearer(shop), json });
    const seq = await head();
    const entity = await ask("entities", { entity_id: "1101160000000000077" });
    expect(entity.status, entity.text).toBe(201);
    expect((await ask("entities", { entity_id: "1101160000000000077" })).status).toBe(200);
    const header = await ask("headers", { header: "SHOPIN" });
    expect(header.status, header.text).toBe(201);
    const url = await ask("urls", { entity_id: "1101160000000000077", url: "https://shop.example.com/o" });
    expect(url.status, url.text).toBe(201);
    expect((await ask("headers", { header: "" })).status).toBe(400);

    const log = await entriesAfter(seq);
    expect(
      log.slice(0, 2).map((entry) => [entry.action, entry.actor, entry.channel, entry.target, entry.after]),
    ).toEqual([
      [
        "dlt_entity.request",
        shop.username,
        "api",
        `DLT entity ${entity.body.data.id}`,
        expect.objectContaining({ entity_id: "1101160000000000077", status: "pending" }),
      ],
      [
        "dlt_header.request",
        shop.username,
        "api",
        `DLT header ${header.body.data.id}`,
        expect.objectContaining({ header: "SHOPIN", status: "pending" }),
      ],
    ]);
    expect(log[2]).toMatchObject({
      action: "dlt_url.request",
      target: `DLT link ${url.body.data.id}`,
      after: { url: "shop.example.com/o", status: "pending" },
    });
    expect(log).toHaveLength(3);
  });
});
