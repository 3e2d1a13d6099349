// An email address finds its messages whatever the case of its letters (audit F2), as a send
// treats `Bob@` and `bob@` as one recipient: on both engines through the real server, in the v2
// list and export and the operator's list and export; the stored address keeps its case; numbers
// still match exactly their forms; and the list is still read through its index of
// (account or every account, created_at, id), the address compared on the rows it reads.
import { CompiledQuery, type KyselyPlugin, type RootOperationNode, sql } from "kysely";
import { expect, it } from "vitest";
import { addEmailDomain } from "../../../src/channels/email/domains.js";
import { listMessages, recipientForms } from "../../../src/domain/messages/index.js";
import { postEmail } from "../../channels/email/helpers.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { operatorCall } from "../../helpers/legacy.js";
import { FAST_SIMULATOR, keyOf, sendSms } from "../../helpers/sms.js";

/** The plan of each SELECT `read` runs (EXPLAIN on PostgreSQL, EXPLAIN QUERY PLAN on SQLite). */
async function plansOf(t: TestGateway, read: (db: TestGateway["db"]["store"]["db"]) => Promise<unknown>) {
  const db = t.db.store.db;
  const nodes: RootOperationNode[] = [];
  const capture: KyselyPlugin = {
    transformQuery: ({ node }) => {
      nodes.push(node);
      return node;
    },
    transformResult: async ({ result }) => result,
  };
  await read(db.withPlugin(capture));
  const postgres = t.db.url.startsWith("postgres");
  const plans: string[] = [];
  for (const node of nodes) {
    const query = db.getExecutor().compileQuery(node, { queryId: "plan" });
    const explain = CompiledQuery.raw(`${postgres ? "explain" : "explain query plan"} ${query.sql}`, [
      ...query.parameters,
    ]);
    // A test's few rows are read faster in a scan: PostgreSQL is told to plan as for many.
    const { rows } = await db.transaction().execute(async (trx) => {
      if (postgres) await sql`set local enable_seqscan = off`.execute(trx);
      return trx.executeQuery<Record<string, string>>(explain);
    });
    plans.push(rows.map((row) => row["QUERY PLAN"] ?? row.detail).join("\n"));
  }
  return plans;
}

describeEachEngine("email recipient search", (engine) => {
  const gateway = useTestGateway(engine, { env: FAST_SIMULATOR });

  it("finds an address in any case in the v2 and operator lists and exports, and keeps it as sent", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const account = await buildAccount(t, { credits: { sms: 10, email: 10 } });
    await addEmailDomain(t.db.store.db, t.clock, account.id, "shop.example.com", { approve: true });
    const sent = await postEmail(t, {
      api_key: account.apiKey,
      from: "Shop <news@shop.example.com>",
      to: "Asha <Asha+Orders@Example.org>, ravi@example.org",
      subject: "S",
      html: "<p>x</p>",
    });
    expect(sent.status, sent.text).toBe(200);
    expect((await sendSms(t, account, { sender_id: "SWBRD", recipient: "9876543210", message: "x" })).status).toBe(200);

    for (const typed of ["asha+orders@example.org", "ASHA+ORDERS@EXAMPLE.ORG", " Asha+Orders@Example.org "]) {
      const v2 = await call(t, "GET", `/api/v2/messages?recipient=${encodeURIComponent(typed)}`, {
        headers: keyOf(account),
      });
      expect(v2.status, v2.text).toBe(200);
      // Stored as sent, the domain lower-cased.
      expect(v2.body.data.map((row: { mobile: string }) => row.mobile)).toEqual(["Asha+Orders@example.org"]);
      const operatorList = await operatorCall(
        t,
        operator,
        "GET",
        `/messages?account=${account.username}&recipient=${encodeURIComponent(typed)}`,
      );
      expect(operatorList.body.data.map((row: { mobile: string }) => row.mobile)).toEqual(["Asha+Orders@example.org"]);
      const everyone = await operatorCall(t, operator, "GET", `/messages?recipient=${encodeURIComponent(typed)}`);
      expect(everyone.body.data).toHaveLength(1);
      const csv = await call(t, "GET", `/api/v2/messages/export?recipient=${encodeURIComponent(typed)}`, {
        headers: keyOf(account),
      });
      expect(csv.status).toBe(200);
      expect(csv.text.trim().split("\n")).toHaveLength(2);
      expect(csv.text).toContain("Asha+Orders@example.org");
      const jsonl = await operatorCall(
        t,
        operator,
        "GET",
        `/messages/export?format=jsonl&recipient=${encodeURIComponent(typed)}`,
      );
      expect(
        jsonl.text
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line).mobile),
      ).toEqual(["Asha+Orders@example.org"]);
    }
    // Another address, and a number, are still only themselves.
    const other = await call(t, "GET", "/api/v2/messages?recipient=asha%40example.org", { headers: keyOf(account) });
    expect(other.body.data).toEqual([]);
    const number = await call(t, "GET", "/api/v2/messages?recipient=%2B91%2098765-43210", { headers: keyOf(account) });
    expect(number.body.data.map((row: { mobile: string }) => row.mobile)).toEqual(["9876543210"]);
  });

  it("reads the list through its index of (account, created_at, id), or of every account's", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const filter = { recipients: recipientForms("Asha@Example.org") };
    expect(filter.recipients).toEqual(["asha@example.org"]);
    const [own] = await plansOf(t, (db) => listMessages(db, account.id, filter, 50));
    expect(own).toContain("messages_by_account_created");
    const [all] = await plansOf(t, (db) => listMessages(db, undefined, filter, 50));
    expect(all).toContain("messages_by_created");
    // Past the first letters of ASCII, each engine's lower(): both forms are asked for.
    expect(recipientForms("Ärzte@Example.org")).toEqual(["Ärzte@example.org", "ärzte@example.org"]);
  });
});
