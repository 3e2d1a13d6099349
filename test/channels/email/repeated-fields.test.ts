// An email parameter given more than once: `to`, `cc` and `bcc` (comma-separated lists in the
// spec) are the list of all their values, where a JSON array or a repeated field sent to its
// first address only, charged for one; any other field given again with another value, or as a
// JSON array, is -11 (a credential -7), nothing sent or charged; the same value again is that value.
import { expect, it } from "vitest";
import { describeEnginesTogether } from "../../helpers/engines.js";
import { call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { legacy } from "../../helpers/legacy.js";
import { base, emailAccount } from "./helpers.js";

const PATH = "/httpemailapi/v1/send";

/** The send's recipients as stored, sorted. */
async function recipientsOf(t: TestGateway, account: TestAccount, broadcastId: string): Promise<string[]> {
  const rows = await t.db.store.db
    .selectFrom("messages")
    .select("recipient")
    .where("account_id", "=", account.id)
    .where("broadcast_id", "=", broadcastId)
    .execute();
  return rows.map((row) => row.recipient).sort();
}

async function messageCount(t: TestGateway, account: TestAccount): Promise<number> {
  const row = await t.db.store.db
    .selectFrom("messages")
    .select((eb) => eb.fn.countAll().as("n"))
    .where("account_id", "=", account.id)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A send with `pairs` in order (a name may repeat): GET, POST (urlencoded) or MULTIPART; its plain-text answer. */
async function send(t: TestGateway, pairs: [string, string][], method: "GET" | "POST" | "MULTIPART"): Promise<string> {
  const response = await legacy(t, PATH, pairs, method);
  expect(response.status).toBe(200);
  return response.text;
}

async function sendJson(t: TestGateway, body: unknown): Promise<string> {
  const response = await call(t, "POST", PATH, {
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return response.text;
}

describeEnginesTogether("email API: a parameter given more than once", (engine) => {
  const gateway = useTestGateway(engine);

  it("to, cc and bcc given twice, or as JSON arrays, are lists: every address is sent and charged", async () => {
    const t = gateway();
    const account = await emailAccount(t);
    const pairs = Object.entries(base(account));
    for (const method of ["GET", "POST", "MULTIPART"] as const) {
      const id = await send(
        t,
        [...pairs, ["To", "ravi@example.org"], ["cc", "c1@example.org"], ["CC", "c2@example.org"]],
        method,
      );
      expect(id, method).toMatch(/^\d+_\d{8}_\d+$/);
      expect(await recipientsOf(t, account, id), method).toEqual([
        "asha@example.org",
        "c1@example.org",
        "c2@example.org",
        "ravi@example.org",
      ]);
    }
    const id = await sendJson(t, {
      ...base(account),
      to: ["asha@example.org", "Ravi <ravi@example.org>"],
      bcc: ["b@example.org"],
    });
    expect(await recipientsOf(t, account, id)).toEqual(["asha@example.org", "b@example.org", "ravi@example.org"]);
  });

  it("another subject, from or html is -11, a JSON array for one -11 too; the same value again is that value", async () => {
    const t = gateway();
    const account = await emailAccount(t);
    const pairs = Object.entries(base(account));
    for (const method of ["GET", "POST", "MULTIPART"] as const) {
      expect(await send(t, [...pairs, ["Subject", "Another subject"]], method), method).toBe("-11");
      expect(await send(t, [...pairs, ["SUBJECT", "Your order"]], method), method).toMatch(/^\d+_\d{8}_\d+$/);
    }
    for (const extra of [
      ["subject", ""],
      ["from", "news@shop.example.com"],
      ["html", "<p>Other</p>"],
    ] as [string, string][]) {
      expect(await send(t, [...pairs, extra], "POST"), extra[0]).toBe("-11");
    }
    // Two different keys name no one login.
    expect(await send(t, [...pairs, ["api_key", "sb_other"]], "GET")).toBe("-7");
    expect(await sendJson(t, { ...base(account), subject: ["Your order"] })).toBe("-11");
    expect(await sendJson(t, { ...base(account), subject: ["Your order", "Another"] })).toBe("-11");
    expect(await messageCount(t, account)).toBe(3);
  });
});
