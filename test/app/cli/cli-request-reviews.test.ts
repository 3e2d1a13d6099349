// The CLI decides every kind of request the operator API does (decision 0144): `dlt
// entities|headers|urls|callbacks approve|reject --id N` and `voice-caller-ids reject --id N`,
// each `reject` with `--reason` (kept for the account, audited with the CLI as the actor), and
// `sender-ids approve` white-lists the DLT header unless `--no-dlt-header` (decision 0151), as
// `sender-ids add --approve` does.
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { systemClock } from "../../../src/base/core/clock.js";
import { requestCallerId } from "../../../src/channels/voice/caller-ids.js";
import {
  addDltEntity,
  addDltLink,
  addSenderId,
  requestDltRegistration,
  requireAccount,
} from "../../../src/domain/accounts/index.js";
import { cliActor } from "../../../src/domain/audit/index.js";
import { cliOk, runCli } from "../../helpers/cli.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";

// Every step spawns a CLI process (a second of Node start-up each).
vi.setConfig({ testTimeout: 180_000 });

const ENTITY = "1101160000000000144";

describeEachEngine("switchboard CLI: deciding DLT requests and caller numbers", (engine) => {
  let db: TestDatabase;
  let env: Record<string, string>;
  let account: { id: number; username: string };

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    env = { DATABASE_URL: db.url, SQLITE_SYNCHRONOUS: "NORMAL" };
    await cliOk(["accounts", "create", "--username", "review-user", "--password", "cli-password"], env);
    await cliOk(["accounts", "create", "--username", "other-user", "--password", "cli-password"], env);
    account = await requireAccount(db.store.db, "review-user");
  });

  afterAll(async () => {
    await db?.drop();
  });

  const audit = (action: string) =>
    db.store.db.selectFrom("audit_log").selectAll().where("action", "=", action).execute();

  it("rejects each kind with a reason, approves by id, and refuses another account's id", async () => {
    const store = db.store.db;
    await addDltEntity(store, systemClock, account.id, ENTITY);
    const asked = {
      entities: (await requestDltRegistration(store, systemClock, account.id, "entity", "1101160000000000145")).row,
      headers: (await requestDltRegistration(store, systemClock, account.id, "header", "SHOPPY")).row,
      urls: (
        await addDltLink(store, systemClock, account, {
          kind: "url",
          entityId: ENTITY,
          value: "shop.example.com/x",
          status: "pending",
        })
      ).row,
      callbacks: (
        await addDltLink(store, systemClock, account, {
          kind: "callback",
          entityId: ENTITY,
          value: "1800 123 4567",
          status: "pending",
        })
      ).row,
    };
    const named = {
      entities: "1101160000000000145",
      headers: "SHOPPY",
      urls: "shop.example.com/x",
      callbacks: "18001234567",
    };
    const kinds = { entities: "dlt_entity", headers: "dlt_header", urls: "dlt_url", callbacks: "dlt_callback" };
    for (const group of ["entities", "headers", "urls", "callbacks"] as const) {
      const id = String(asked[group].id);
      const other = await runCli(["dlt", group, "reject", "--id", id, "--account", "other-user"], env);
      expect(other.code, group).toBe(1);
      expect(other.stderr, group).toContain(`with id ${id} in account other-user`);
      const text = await cliOk(["dlt", group, "reject", "--id", id, "--reason", "  Not on DLT. "], env);
      expect(text, group).toContain(`rejected`);
      expect(text, group).toContain(`${named[group]} of account review-user (Not on DLT.)`);
      const [entry] = await audit(`${kinds[group]}.reject`);
      expect(entry, group).toMatchObject({ channel: "cli", account_id: account.id });
      expect(JSON.parse(entry?.after ?? "{}"), group).toMatchObject({
        status: "rejected",
        rejection_reason: "Not on DLT.",
      });
      const approved = JSON.parse(
        await cliOk(["dlt", group, "approve", "--id", id, "--account", "review-user", "--json"], env),
      );
      expect(approved, group).toMatchObject({ status: "approved", rejection_reason: null, account: "review-user" });
    }
    const tooLong = await runCli(
      ["dlt", "headers", "reject", "--id", String(asked.headers.id), "--reason", "x".repeat(501)],
      env,
    );
    expect(tooLong.stderr).toContain("The reason must be at most 500 characters (got 501).");

    const { callerId } = await requestCallerId(
      { store: db.store, clock: systemClock, actor: cliActor() },
      account,
      "080 4711 0144",
    );
    const rejected = JSON.parse(
      await cliOk(["voice-caller-ids", "reject", "--id", String(callerId.id), "--reason", "Not yours.", "--json"], env),
    );
    expect(rejected).toMatchObject({ number: "+918047110144", status: "rejected", rejection_reason: "Not yours." });
    expect(await audit("voice_caller_id.reject")).toHaveLength(1);
    expect((await runCli(["dlt", "headers", "reject", "--id", "999999"], env)).stderr).toContain(
      "No DLT header with id 999999.",
    );
  });

  it("approves a sender ID with its DLT header, or alone with --no-dlt-header", async () => {
    const store = db.store.db;
    const alone = await addSenderId(store, systemClock, account.id, "ALONE1");
    const both = await addSenderId(store, systemClock, account.id, "BOTH12");
    const kept = JSON.parse(
      await cliOk(["sender-ids", "approve", "--id", String(alone.id), "--no-dlt-header", "--json"], env),
    );
    expect(kept).toMatchObject({ status: "approved", dlt_header: null });
    expect(await cliOk(["sender-ids", "approve", "--id", String(both.id)], env)).toBe(
      "approved sender ID BOTH12 and DLT header of account review-user\n",
    );
    const listed = JSON.parse(await cliOk(["dlt", "list", "--account", "review-user", "--json"], env));
    const headers = listed.headers.map((h: { header: string }) => h.header);
    expect(headers).toContain("BOTH12");
    expect(headers).not.toContain("ALONE1");
  });

  it("adds a sender ID approved with its DLT header, audited, or alone with --no-dlt-header", async () => {
    const add = ["sender-ids", "add", "--account", "review-user", "--approve"];
    expect(await cliOk([...add, "--sender", "ADDED1"], env)).toBe(
      "sender ID ADDED1 and DLT header for review-user: approved\n",
    );
    const kept = JSON.parse(await cliOk([...add, "--sender", "KEPT12", "--no-dlt-header", "--json"], env));
    expect(kept).toMatchObject({ sender_id: "KEPT12", status: "approved", dlt_header: null });
    const headers = await db.store.db
      .selectFrom("dlt_headers")
      .select(["id", "header", "status"])
      .where("account_id", "=", account.id)
      .where("header", "in", ["ADDED1", "KEPT12"])
      .execute();
    expect(headers).toEqual([{ id: expect.any(Number), header: "ADDED1", status: "approved" }]);
    const entries = (await audit("dlt_header.add")).filter((e) => e.target === `DLT header ${headers[0]!.id}`);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ channel: "cli", account_id: account.id });
    expect(JSON.parse(entries[0]?.before ?? "null")).toEqual({ status: null });
    expect(JSON.parse(entries[0]?.after ?? "{}")).toMatchObject({
      header: "ADDED1",
      status: "approved",
      with: expect.stringMatching(/^sender ID \d+$/),
    });
  });
});
