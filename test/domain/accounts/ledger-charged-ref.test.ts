// A ledger export joins each refund to the debit it gave back (audit F16), on both engines: a
// refund's `charged_ref` is the broadcast whose debit has that ref — a scheduled SMS cancelled
// (refund ref: its message), a bulk job's unsent part cancelled (refund ref: bulk_part:N), and a
// sub-account's message refunded at its parent's level too; every other entry's is null.
import { expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { operatorCall } from "../../helpers/legacy.js";
import { subAccount } from "../../helpers/resellers.js";
import { keyOf } from "../../helpers/sms.js";

interface Entry {
  kind: string;
  ref: string | null;
  charged_ref: string | null;
  amount: number;
}

describeEachEngine("a ledger export's charged_ref", (engine) => {
  const gateway = useTestGateway(engine, { roles: ["api"] });

  const ledgerOf = async (t: TestGateway, operator: TestAccount, account: TestAccount): Promise<Entry[]> => {
    const answer = await operatorCall(t, operator, "GET", `/accounts/${account.username}/ledger/export?format=jsonl`);
    expect(answer.status, answer.text).toBe(200);
    return answer.text
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as Entry);
  };
  /** Each refund's charged_ref names a debit of the same export. */
  const joined = (entries: Entry[]) => {
    const debits = new Set(entries.filter((e) => e.kind === "debit").map((e) => e.ref));
    for (const entry of entries) {
      if (entry.kind === "refund") expect(debits.has(entry.charged_ref), JSON.stringify(entry)).toBe(true);
      else expect(entry.charged_ref).toBeNull();
    }
  };

  it("names the broadcast a cancelled scheduled SMS and a cancelled bulk part were charged under", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator" });
    const account = await buildAccount(t, { credits: { sms: 20 } });
    const scheduled = await call(t, "POST", "/api/v2/sms/schedule", {
      headers: keyOf(account),
      json: { sender_id: "SWBRD", recipient: "9876543210", message: "Later", scheduled_at: "2099-01-01 10:00:00" },
    });
    expect(scheduled.status, scheduled.text).toBe(200);
    const cancelled = await call(t, "DELETE", `/api/v2/sms/schedule/${scheduled.body.data.message_id}`, {
      headers: keyOf(account),
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    const job = await call(t, "POST", "/api/v2/sms/bulk", {
      headers: keyOf(account),
      json: { sender_id: "SWBRD", message: "Stock take", recipients: ["9200000007", "9200000017", "9200000027"] },
    });
    expect(job.status, job.text).toBe(200);
    expect(
      (await call(t, "POST", `/api/v2/bulk-jobs/${job.body.data.job_id}/cancel`, { headers: keyOf(account) })).status,
    ).toBe(200);

    const entries = await ledgerOf(t, operator, account);
    const refunds = entries.filter((e) => e.kind === "refund");
    expect(refunds.map((e) => [e.ref?.startsWith("bulk_part:") ? "bulk_part" : e.ref, e.charged_ref])).toEqual([
      [scheduled.body.data.message_id, scheduled.body.data.broadcast_id],
      ["bulk_part", job.body.data.batch_id],
    ]);
    joined(entries);
    // The account's own export says the same.
    const own = await call(t, "GET", "/api/v2/credits/export?format=jsonl", { headers: keyOf(account) });
    expect(own.status, own.text).toBe(200);
    const ownEntries = own.text
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as Entry);
    expect(ownEntries.filter((e) => e.kind === "refund").map((e) => e.charged_ref)).toEqual(
      refunds.map((e) => e.charged_ref),
    );
    // CSV carries the column too.
    const csv = await operatorCall(t, operator, "GET", `/accounts/${account.username}/ledger/export?format=csv`);
    expect(csv.text.split("\n")[0]).toContain(",ref,charged_ref,");
  });

  it("joins a sub-account's refund at its parent's level as at its own", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator" });
    const parent = await buildAccount(t, { credits: { sms: 50 } });
    const sub = await subAccount(t, parent);
    const scheduled = await call(t, "POST", "/api/v2/sms/schedule", {
      headers: keyOf(sub),
      json: { sender_id: "SWBRD", recipient: "9876543210", message: "Later", scheduled_at: "2099-01-01 10:00:00" },
    });
    expect(scheduled.status, scheduled.text).toBe(200);
    const cancelled = await call(t, "DELETE", `/api/v2/sms/schedule/${scheduled.body.data.message_id}`, {
      headers: keyOf(sub),
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    for (const account of [sub, parent]) {
      const entries = await ledgerOf(t, operator, account);
      expect(entries.filter((e) => e.kind === "refund").map((e) => e.charged_ref)).toEqual([
        scheduled.body.data.broadcast_id,
      ]);
      joined(entries);
    }
  });
});
