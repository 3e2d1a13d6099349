// The recipients a multi-recipient send went on without (F4): on both engines through the real
// server, the legacy comma list, the XML API's numbers, the v2 bulk call (a job, and a job
// extended) and SMPP submit_multi each leave a row per number left out in the log of refusals,
// found by the number written another way and by the broadcast or job; the answers the clients
// parse are as before; a refused send to several is found by any of its numbers written any
// way (F5); a bulk retry with its Idempotency-Key writes nothing again; the reads go through an
// index; bad filters are 400s. The bounds (an hour's budget per account, REFUSAL_LOG_DAYS) are
// checked on the log itself.
import { CompiledQuery } from "kysely";
import { expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { createMetrics } from "../../../src/base/runtime/metrics.js";
import {
  insertRefusals,
  LEFT_OUT_PER_ACCOUNT_PER_HOUR,
  type NewRefusal,
  pruneRefusals,
  RefusalLog,
} from "../../../src/domain/refusals/index.js";
import { indexedRefusalsQuery } from "../../../src/domain/refusals/rows.js";
import { boundEsme, smppAccount, until, useSmppTestGateway } from "../../channels/smpp-server/client.js";
import { describeEnginesTogether } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway } from "../../helpers/gateway.js";
import { expectBroadcastId, legacy, operatorCall, pushsms, sendParams, xmlSend } from "../../helpers/legacy.js";

type Row = Record<string, unknown>;
const bearer = (account: TestAccount) => ({ authorization: `Bearer ${account.apiKey}` });

describeEnginesTogether("recipients left out of a send, in the log of refusals", (engine) => {
  const gateway = useSmppTestGateway(engine, { env: { SMPP_SERVER_PORT: "auto" } });

  async function withDnd(t: TestGateway, numbers: string[]) {
    const operator = await buildAccount(t, { role: "operator", sender: null });
    await operatorCall(t, operator, "POST", "/dnd", { numbers });
    return operator;
  }

  /** Every row the query lists, following the cursor. */
  async function refusals(t: TestGateway, who: TestAccount, query: string, path = "/api/v2/refusals") {
    const rows: Row[] = [];
    let cursor: string | null = null;
    do {
      const answer = await call(t, "GET", `${path}?${query}${cursor ? `&cursor=${cursor}` : ""}`, {
        headers: bearer(who),
      });
      expect(answer.status, answer.text).toBe(200);
      rows.push(...answer.body.data);
      cursor = answer.body.meta.next_cursor;
    } while (cursor);
    return rows;
  }

  async function written(t: TestGateway, accountId: number, count: number) {
    await until(
      async () => {
        const stored = await t.db.store.db
          .selectFrom("refusals")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("account_id", "=", accountId)
          .executeTakeFirstOrThrow();
        return Number(stored.n) >= count;
      },
      20_000,
      `${count} refusals of account ${accountId}`,
    );
  }

  it("a legacy comma list and an XML document: each number left out found by its number and by the broadcast", async () => {
    const t = gateway();
    await withDnd(t, ["9811100099"]);
    const account = await buildAccount(t, { credits: { sms: 50 } });
    const send = await legacy(
      t,
      "/httpapi/send",
      sendParams(account, {
        route: "P",
        sender_id: "PROMOTIONAL",
        phonenumber: "9811100099,9811100042,123",
        message: "Promo2",
      }),
    );
    const broadcast = expectBroadcastId(send, account, "legacy send");
    const xml = await xmlSend(
      t,
      pushsms(account, {
        sender: "PROMOTIONAL",
        route: "P",
        messages: [
          { pno: "+91 98111 00099", msg: "xml one" },
          { pno: "9811100043", msg: "xml two" },
          { pno: "98-765", msg: "xml three" },
        ],
      }),
    );
    const xmlBroadcast = expectBroadcastId(xml, account, "xml send");
    await written(t, account.id, 4);

    const dnd = await refusals(t, account, `recipient=${encodeURIComponent("+91 98111-00099")}`);
    expect(dnd.map((row) => [row.family, row.broadcast_id])).toEqual([
      ["xml", xmlBroadcast],
      ["legacy", broadcast],
    ]);
    expect(dnd[1]).toMatchObject({
      operation: "GET /httpapi/send",
      recipients: ["9811100099"],
      recipient_count: 1,
      sender: "PROMOTIONAL",
      text: "Promo2",
      http_status: 200,
      code: "dnd_blocked",
      answer: broadcast,
      job_id: null,
    });
    expect(dnd[1]!.reason).toContain("DND");
    const invalid = await refusals(t, account, "recipient=123");
    expect(invalid).toMatchObject([{ code: "invalid_recipient", recipients: ["123"], broadcast_id: broadcast }]);
    const ofBroadcast = await refusals(t, account, `broadcast_id=${broadcast}`);
    expect(ofBroadcast.map((row) => row.code).sort()).toEqual(["dnd_blocked", "invalid_recipient"]);
    const ofXml = await refusals(t, account, `broadcast_id=${xmlBroadcast}`);
    expect(ofXml.map((row) => row.recipients).sort()).toEqual([["98-765"], ["9811100099"]]);

    // The operator's list: the same rows, by account and by broadcast alone.
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const seen = await refusals(t, operator, `broadcast_id=${broadcast}`, "/admin/api/refusals");
    expect(seen).toHaveLength(2);
    expect(seen.every((row) => row.account === account.username)).toBe(true);
    const number = await refusals(
      t,
      operator,
      `account=${account.username}&recipient=919811100099`,
      "/admin/api/refusals",
    );
    expect(number).toHaveLength(2);
  });

  it("a v2 bulk job and its extension: every number left out listed by the job, the answers as before", async () => {
    const t = gateway();
    const dndNumbers = Array.from({ length: 30 }, (_, i) => String(9_811_200_000 + i));
    await withDnd(t, dndNumbers);
    const account = await buildAccount(t, { credits: { sms: 500 } });
    const fresh = Array.from({ length: 70 }, (_, i) => String(9_876_100_000 + i));
    const body = {
      sender_id: "PROMOTIONAL",
      route: "promotional",
      message: "Diwali sale",
      recipients: [...fresh, ...dndNumbers, "12345", fresh[0]!],
    };
    const first = await call(t, "POST", "/api/v2/sms/bulk", {
      headers: { ...bearer(account), "idempotency-key": "bulk-left-out-1" },
      json: body,
    });
    expect(first.status, first.text).toBe(200);
    expect(Object.keys(first.body.data).sort()).toEqual(
      ["accepted", "batch_id", "credits", "job_id", "rejected", "rejected_count", "status", "total"].sort(),
    );
    expect(first.body.data).toMatchObject({ total: 102, accepted: 70, rejected_count: 32 });
    const jobId = first.body.data.job_id as number;
    const batchId = first.body.data.batch_id as string;
    // A retry with the same key answers the same and writes nothing again.
    const again = await call(t, "POST", "/api/v2/sms/bulk", {
      headers: { ...bearer(account), "idempotency-key": "bulk-left-out-1" },
      json: body,
    });
    expect(again.body).toEqual(first.body);
    // The job extended: its left-out numbers are the job's too.
    const more = await call(t, "POST", "/api/v2/sms/bulk", {
      headers: bearer(account),
      json: { ...body, job_id: jobId, recipients: ["9876200001", "+91-98112-00000"] },
    });
    expect(more.status, more.text).toBe(200);
    expect(more.body.data).toMatchObject({ job_id: jobId, batch_id: batchId, rejected_count: 1 });
    await written(t, account.id, 33);

    const job = await call(t, "GET", `/api/v2/bulk-jobs/${jobId}`, { headers: bearer(account) });
    expect(job.body.data.job).toMatchObject({ rejected: 33, rejected_url: `/api/v2/refusals?job_id=${jobId}` });
    const listed = await refusals(t, account, `${job.body.data.job.rejected_url.split("?")[1]}&limit=10`);
    expect(listed).toHaveLength(33);
    expect(listed.every((row) => row.job_id === jobId && row.broadcast_id === batchId)).toBe(true);
    const codes = listed.reduce<Record<string, number>>((n, row) => {
      n[row.code as string] = (n[row.code as string] ?? 0) + 1;
      return n;
    }, {});
    expect(codes).toEqual({ dnd_blocked: 31, invalid_recipient: 1, duplicate_recipient: 1 });
    expect(listed.find((row) => row.code === "invalid_recipient")).toMatchObject({
      operation: "POST /api/v2/sms/bulk",
      recipients: ["12345"],
      answer: "200 invalid_recipient",
      http_status: 200,
    });
    expect(await refusals(t, account, `broadcast_id=${batchId}&code=dnd_blocked`)).toHaveLength(31);
    // The number written another way finds both calls' refusals of it.
    const one = await refusals(t, account, "recipient=%2B91%2098112%2000000");
    expect(one.map((row) => row.job_id)).toEqual([jobId, jobId]);
    // Another account's job, and one that is not, list nothing.
    expect(await refusals(t, await buildAccount(t), `job_id=${jobId}`)).toEqual([]);
    expect(await refusals(t, account, "job_id=999999")).toEqual([]);
  });

  it("a bulk job to a contact group: its DND contacts listed by the job", async () => {
    const t = gateway();
    await withDnd(t, ["9811300001", "9811300002"]);
    const account = await buildAccount(t, { credits: { sms: 50 } });
    const group = await call(t, "POST", "/api/v2/groups", { headers: bearer(account), json: { name: "Diwali" } });
    expect(group.status, group.text).toBe(201);
    const groupId = group.body.data.id as number;
    const added = await call(t, "POST", `/api/v2/groups/${groupId}/contacts`, {
      headers: bearer(account),
      json: ["9811300001", "+91 98113 00002", "9876300003"],
    });
    expect(added.status, added.text).toBeLessThan(300);
    const send = await call(t, "POST", "/api/v2/sms/bulk", {
      headers: bearer(account),
      json: { sender_id: "PROMOTIONAL", route: "promotional", message: "Group sale", group_id: groupId },
    });
    expect(send.status, send.text).toBe(200);
    expect(send.body.data).toMatchObject({ total: 3, accepted: 1, rejected_count: 2 });
    await written(t, account.id, 2);
    const rows = await refusals(t, account, `job_id=${send.body.data.job_id}`);
    expect(rows.map((row) => row.recipients).sort()).toEqual([["9811300001"], ["9811300002"]]);
    expect(rows.every((row) => row.code === "dnd_blocked" && row.text === "Group sale")).toBe(true);
  });

  it("prunes a refused send to several with its numbers' keys", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    await insertRefusals(t.db.store, [
      {
        account_id: account.id,
        family: "legacy",
        operation: "GET /httpapi/send",
        recipients: "9811400001,9811400002",
        recipient_count: 2,
        sender: "SWBRD",
        text: "old",
        http_status: 200,
        code: "dnd_blocked",
        answer: "-11",
        reason: "DND",
        request_id: "old-1",
        address: "10.0.0.1",
        created_at: Date.parse("2026-01-01T00:00:00Z"),
      },
    ]);
    expect(await refusals(t, account, "recipient=919811400002")).toHaveLength(1);
    const keys = () =>
      t.db.store.db.selectFrom("refusal_recipients").selectAll().where("recipient_key", "like", "9198114%").execute();
    expect(await keys()).toHaveLength(2);
    await pruneRefusals(t.db.store, Date.parse("2026-02-01T00:00:00Z"), 100);
    expect(await keys()).toEqual([]);
    expect(await refusals(t, account, "recipient=919811400002")).toEqual([]);
  });

  it("SMPP submit_multi: the destinations left out, as in its unsuccess_sme (a repeat sent once)", async () => {
    const t = gateway();
    await withDnd(t, ["9811100097"]);
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    const client = await boundEsme(t, account, "transceiver");
    const answer = await client.request("submit_multi", {
      source_addr: "PROMOTIONAL",
      service_type: "P",
      dest_address: [
        { dest_addr_ton: 0, dest_addr_npi: 1, destination_addr: "9876543274" },
        { dest_addr_ton: 0, dest_addr_npi: 1, destination_addr: "9811100097" },
        { dest_addr_ton: 0, dest_addr_npi: 1, destination_addr: "98765" },
        // The first destination again, written another way: sent and charged once.
        { dest_addr_ton: 1, dest_addr_npi: 1, destination_addr: "919876543274" },
      ],
      short_message: "to three",
    });
    client.destroy();
    expect(answer.command_status).toBe(0);
    expect(answer.unsuccess_sme).toHaveLength(3);
    const broadcastId = answer.message_id as string;
    await written(t, account.id, 3);
    const rows = await refusals(t, account, `broadcast_id=${broadcastId}`);
    expect(rows.map((row) => [row.recipients, row.code, row.answer])).toEqual([
      [["9876543274"], "duplicate_recipient", "0x0000000B ESME_RINVDSTADR"],
      [["9811100097"], "dnd_blocked", "0x00000401 SB_DND"],
      [["98765"], "invalid_recipient", "0x0000000B ESME_RINVDSTADR"],
    ]);
    const sent = await t.db.store.db
      .selectFrom("messages")
      .select("recipient")
      .where("account_id", "=", account.id)
      .execute();
    expect(sent).toEqual([{ recipient: "9876543274" }]);
    expect(rows[1]).toMatchObject({
      family: "smpp",
      operation: "submit_multi",
      sender: "PROMOTIONAL",
      text: "to three",
    });
    expect(await refusals(t, account, "recipient=919811100097")).toHaveLength(1);
  });

  it("a refused send to several is found by any of its numbers written any way", async () => {
    const t = gateway();
    await withDnd(t, ["9811100091", "9811100092"]);
    const account = await buildAccount(t);
    const send = await legacy(
      t,
      "/httpapi/send",
      sendParams(account, { route: "P", sender_id: "PROMOTIONAL", phonenumber: "9811100091,+91 98111 00092" }),
    );
    expect(send.text).toMatch(/^-\d+$/);
    await written(t, account.id, 1);
    for (const written of ["919811100091", "98111-00092", "+919811100092"]) {
      const rows = await refusals(t, account, `recipient=${encodeURIComponent(written)}`);
      expect(rows, written).toMatchObject([{ recipients: ["9811100091", "+91 98111 00092"], broadcast_id: null }]);
    }
  });

  it("reads by recipient, broadcast and job through an index, and refuses bad filters", async () => {
    const t = gateway();
    const db = t.db.store.db;
    for (const filter of [
      { recipient: "9811100099" },
      { recipient: "9811100099", accountId: 7 },
      { broadcastId: "2_20261201_000034", accountId: 7 },
    ]) {
      const plan = await planOf(t, indexedRefusalsQuery(db, filter, 51).compile());
      if ("recipient" in filter) {
        expect(plan).toContain("refusals_by_recipient");
        expect(plan).toMatch(/refusal_recipients_pkey|sqlite_autoindex_refusal_recipients_1/);
      } else expect(plan).toContain("refusals_by_broadcast");
      expect(plan).not.toMatch(/SCAN refusals\b|Seq Scan on refusals/);
    }
    const account = await buildAccount(t);
    for (const [query, field] of [
      ["job_id=abc", "job_id"],
      ["job_id=0", "job_id"],
      ["job_id=99999999999999999", "job_id"],
      [`broadcast_id=${"x".repeat(101)}`, "broadcast_id"],
    ] as const) {
      const refused = await call(t, "GET", `/api/v2/refusals?${query}`, { headers: bearer(account) });
      expect(refused.status, query).toBe(400);
      expect(refused.body.error, query).toMatchObject({ code: "invalid_request" });
      if (field !== "broadcast_id") expect(refused.body.error.field, query).toBe(field);
    }
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const withoutAccount = await call(t, "GET", "/admin/api/refusals?job_id=3", { headers: bearer(operator) });
    expect(withoutAccount.status).toBe(400);
    expect(withoutAccount.body.error).toMatchObject({ code: "invalid_request", field: "job_id" });
  });

  async function planOf(t: TestGateway, query: { sql: string; parameters: readonly unknown[] }): Promise<string> {
    const db = t.db.store.db;
    if (engine === "postgres") {
      return db.transaction().execute(async (trx) => {
        await trx.executeQuery(CompiledQuery.raw("set local enable_seqscan = off"));
        const { rows } = await trx.executeQuery<{ "QUERY PLAN": string }>(
          CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]),
        );
        return rows.map((r) => r["QUERY PLAN"]).join("\n");
      });
    }
    const { rows } = await db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
    );
    return rows.map((r) => r.detail).join("\n");
  }
});

it("bounds: an account's left-out rows an hour, and none when the log is off", async () => {
  const clock = new ManualClock(new Date("2026-12-01T10:00:00Z"));
  const metrics = createMetrics({ defaultMetrics: false });
  const writes: NewRefusal[][] = [];
  const logOf = (days: number) =>
    new RefusalLog(
      {
        clock,
        metrics,
        logger: { warn: () => undefined },
        config: { refusalLogDays: days, refusalLogPerAccountPerMinute: 60 },
      },
      async (rows) => {
        writes.push(rows);
      },
    );
  const send = (count: number) => ({
    broadcastId: "2_20261201_000001",
    operation: "POST /api/v2/sms/bulk",
    httpStatus: 200,
    answer: "200",
    requestId: "r",
    recipients: Array.from({ length: count }, (_, i) => ({ recipient: String(i), code: "dnd_blocked", reason: "DND" })),
  });
  const head = { family: "v2" as const, accountId: 1, address: "127.0.0.1" };
  const log = logOf(30);
  log.recordLeftOut(head, send(LEFT_OUT_PER_ACCOUNT_PER_HOUR - 10));
  log.recordLeftOut(head, send(25));
  await log.flush();
  // Another account has its own budget; the refusals' per-minute cap is untouched.
  log.recordLeftOut({ ...head, accountId: 2 }, send(5));
  log.record(head, () => ({ ...send(0), recipients: ["1"], code: "x", reason: "y" }));
  await log.flush();
  const rows = writes.flat();
  expect(rows.filter((row) => row.account_id === 1 && row.broadcast_id !== null)).toHaveLength(
    LEFT_OUT_PER_ACCOUNT_PER_HOUR,
  );
  expect(rows.filter((row) => row.account_id === 2)).toHaveLength(5);
  expect(rows.filter((row) => row.broadcast_id === null)).toHaveLength(1);
  const dropped = await metrics.refusalsDropped.get();
  expect(dropped.values.find((v) => v.labels.reason === "left_out_per_hour")?.value).toBe(15);
  // The next hour, a new budget.
  clock.advance(3_600_000);
  log.recordLeftOut(head, send(3));
  await log.flush();
  expect(writes.flat()).toHaveLength(rows.length + 3);

  const off = logOf(0);
  off.recordLeftOut(head, send(3));
  await off.flush();
  expect(writes.flat()).toHaveLength(rows.length + 3);
});
