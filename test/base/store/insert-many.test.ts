// Store.insertMany on both engines: every row back exactly as given, whatever its text holds
// (PostgreSQL sends each column as one array: quotes, backslashes, commas, braces, the word NULL
// and empty strings must stay themselves, and nulls null), and rows whose columns differ or hold
// something an array does not carry as it is still go in.
import { afterAll, beforeAll, expect, it } from "vitest";
import { createAccountWithKey } from "../../../src/app/admin/index.js";
import { systemClock } from "../../../src/base/core/clock.js";
import { cliActor } from "../../../src/domain/audit/index.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";
import { messageRow } from "../../helpers/message-row.js";

const BODIES = [
  'a "quoted" word',
  "back\\slash \\\\ twice",
  "comma, {brace} and }{",
  "NULL",
  "",
  "emoji 😀 and हिन्दी",
  "new\nline\ttab",
  "'single' quotes; drop table messages; --",
];

describeEachEngine("store insertMany", (engine) => {
  let db: TestDatabase;
  let accountId: number;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
    const account = await createAccountWithKey(
      { store: db.store, clock: systemClock, actor: cliActor() },
      { username: "many", password: "many-password", credits: { sms: 100 } },
    );
    accountId = account.id;
  });
  afterAll(() => db?.drop());

  it("stores every row as given, text, numbers and nulls", async () => {
    const rows = BODIES.map((body, i) =>
      messageRow({
        id: `qmany${i}`,
        account_id: accountId,
        body,
        meta: i % 2 === 0 ? null : JSON.stringify({ body, n: i }),
        encoding: i % 3 === 0 ? null : "gsm7",
        due_at: 1_700_000_000_000 + i,
        segments: i + 1,
        credits: 1000 * (i + 1),
      }),
    );
    await db.store.transaction((trx) => db.store.insertMany(trx, "messages", rows));
    const stored = await db.store.db
      .selectFrom("messages")
      .selectAll()
      .where("id", "like", "qmany%")
      .orderBy("id")
      .execute();
    expect(stored).toEqual(rows.map((row) => ({ ...row, content_id: null })));
  });

  it("stores rows whose columns differ, each with its own", async () => {
    const rows = [
      messageRow({ id: "qmixed0", account_id: accountId, body: "first" }),
      { ...messageRow({ id: "qmixed1", account_id: accountId, body: "second" }), meta: undefined },
    ];
    await db.store.transaction((trx) => db.store.insertMany(trx, "messages", rows as never));
    const stored = await db.store.db
      .selectFrom("messages")
      .select(["id", "body", "meta"])
      .where("id", "like", "qmixed%")
      .orderBy("id")
      .execute();
    expect(stored).toEqual([
      { id: "qmixed0", body: "first", meta: null },
      { id: "qmixed1", body: "second", meta: null },
    ]);
  });
});
