// A connector that is busy defers what it did not start (DEFERRED): that is not an attempt. A
// backlog larger than the connector takes in a round is sent in order, round after round, and
// no message fails or backs off for having waited its turn.
import { expect, it } from "vitest";
import type { MessageRow } from "../../../src/base/store/schema.js";
import { type Connector, DEFERRED, type SubmitResult } from "../../../src/delivery/dispatch/index.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, testDispatcher, useTestGateway } from "../../helpers/gateway.js";

/** Takes the first `perRound` messages of each batch and defers the rest, as a connector at its rate. */
class BusyConnector implements Connector {
  readonly name = "busy";
  readonly channel = "sms";
  readonly sent: MessageRow[] = [];
  rounds = 0;
  constructor(private readonly perRound: number) {}
  async submit(messages: MessageRow[]): Promise<SubmitResult[]> {
    this.rounds++;
    return messages.map((m, i) => {
      if (i >= this.perRound) return DEFERRED;
      this.sent.push(m);
      return { ok: true, upstreamId: `B-${m.id}` };
    });
  }
  onReports(): void {}
}

describeEachEngine("deferred messages", (engine) => {
  const gateway = useTestGateway(engine, { roles: ["api"] });

  it("are claimed again in order, keep their attempts and never fail for waiting", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 1000 } });
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) {
      const sent = await call(t, "POST", "/api/v2/sms/send", {
        headers: { authorization: `Bearer ${account.apiKey}` },
        json: {
          sender_id: "PROMOTIONAL",
          recipient: `96${10_006_000 + i}`,
          message: `turn ${i}`,
          route: "promotional",
        },
      });
      expect(sent.status).toBe(200);
      ids.push(sent.body.data.message_id);
    }

    // 4 a round: 10 rounds, each deferring most of the batch; 3 attempts would fail them all
    // had a deferral counted as one.
    const connector = new BusyConnector(4);
    const dispatcher = testDispatcher(t, connector, { maxAttempts: 3 });
    dispatcher.start();
    const deadline = Date.now() + 20_000;
    while (connector.sent.length < 40 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await dispatcher.stop();

    expect(connector.sent.map((m) => m.id).sort()).toEqual([...ids].sort());
    expect(connector.rounds).toBe(10);
    // In queue order: the deferred kept their place at its head.
    const dueAt = connector.sent.map((m) => m.due_at);
    expect(dueAt).toEqual([...dueAt].sort((a, b) => a - b));
    const rows = await t.db.store.db
      .selectFrom("messages")
      .select(["id", "status", "attempts", "error_code"])
      .where("id", "in", ids)
      .execute();
    expect(rows).toHaveLength(40);
    for (const row of rows) expect(row).toMatchObject({ status: "submitted", attempts: 1, error_code: null });
  });
});
