// A message's failed webhook attempts say why in words support reads, through the real server on
// both engines: a host that does not resolve is the gateway's own sentence (it read
// "GatewayError: Webhook host … could not be resolved"), a refused connection says the endpoint
// refused it; on the message's page (its webhooks and its timeline) as in the delivery log.
import { createServer } from "node:net";
import { expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { FAST_SIMULATOR, keyOf, sendSms } from "../../helpers/sms.js";

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function firstAttemptError(t: TestGateway, account: TestAccount, url: string): Promise<[string, string]> {
  const set = await call(t, "PUT", "/api/v2/webhooks", { headers: keyOf(account), json: { delivery_report: url } });
  expect(set.status, set.text).toBe(200);
  const sent = await sendSms(t, account, { sender_id: "SWBRD", recipient: "9876540041", message: "Code 1" });
  expect(sent.status, sent.text).toBe(200);
  const id = sent.body.data.message_id as string;
  let page: { webhooks: { attempts_log: { error: string | null }[] }[]; timeline: { event: string; detail: string }[] };
  await expect
    .poll(
      async () => {
        page = (await call(t, "GET", `/api/v2/messages/${id}`, { headers: keyOf(account) })).body.data;
        return page.webhooks[0]?.attempts_log.length ?? 0;
      },
      { timeout: 15_000 },
    )
    .toBeGreaterThan(0);
  const timeline = page!.timeline.find((event) => event.event === "webhook")?.detail ?? "";
  return [page!.webhooks[0]?.attempts_log[0]?.error ?? "", timeline];
}

describeEachEngine("a message's failed webhook attempts in words", (engine) => {
  const gateway = useTestGateway(engine, { env: { ...FAST_SIMULATOR, SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1" } });

  it("says a host does not resolve, and a connection was refused, without a class name", async () => {
    const t = gateway();
    const [unresolved, inTimeline] = await firstAttemptError(
      t,
      await buildAccount(t),
      "https://hooks.nonexistent-host.invalid/sms",
    );
    expect(unresolved).toMatch(/^Webhook host hooks\.nonexistent-host\.invalid could not be resolved \(\w+\)\.$/);
    expect(inTimeline).toContain(`no answer in`);
    expect(inTimeline).toContain(unresolved);
    expect(inTimeline).not.toContain("GatewayError");

    const port = await closedPort();
    const [refused] = await firstAttemptError(t, await buildAccount(t), `http://127.0.0.1:${port}/hook`);
    expect(refused).toBe(`The endpoint refused the connection (connect ECONNREFUSED 127.0.0.1:${port}).`);
  });
});
