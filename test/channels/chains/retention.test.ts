// Fallback chains past MESSAGE_RETENTION_DAYS on both engines, on a manual clock: a completed
// chain goes with its steps, a running one goes once retention removed its messages (its waiting
// step could never be decided), a newer one stays; the started/completed counters; and the
// operator's `switchboard chains list|show` over the same database.
import { afterEach, expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { cliOk, runCli, STACK_TRACE } from "../../helpers/cli.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { chainAccount, SMS_STEP as sms, WHATSAPP_STEP as whatsapp } from "./helpers.js";

const DAY_MS = 86_400_000;
const WHATSAPP_NEVER_READ = "919876500001";

async function chainRows(t: TestGateway) {
  const chains = await t.db.store.db.selectFrom("send_chains").select("id").execute();
  const steps = await t.db.store.db.selectFrom("chain_steps").select("chain_id").execute();
  return { chains: chains.map((c) => c.id).sort(), steps: [...new Set(steps.map((s) => s.chain_id))].sort() };
}

async function counted(t: TestGateway) {
  const started = (await t.gateway.ctx.metrics.chainsStarted.get()).values[0]?.value ?? 0;
  const completed = (await t.gateway.ctx.metrics.chainsCompleted.get()).values.map((v) => [v.labels.outcome, v.value]);
  return { started, completed: Object.fromEntries(completed) };
}

describeEachEngine("fallback chains: retention, counters, CLI", (engine) => {
  const gateway = useTestGateway(engine, {
    clock: new ManualClock("2026-11-22T06:30:00Z"),
    env: {
      SIMULATOR_LATENCY_MS: "20",
      SIMULATOR_FAILURE_RATE: "0",
      CHAIN_POLL_MS: "50",
      WHATSAPP_SIMULATOR_LATENCY_MS: "40",
      MESSAGE_RETENTION_DAYS: "1",
    },
  });
  // The gateway's clock is manual: keep it moving (10 × real time, or faster while retention works).
  let step = 200;
  let ticker: ReturnType<typeof setInterval> | undefined;
  afterEach(() => clearInterval(ticker));

  it("prunes completed and stranded chains after MESSAGE_RETENTION_DAYS, and lists and shows chains", async () => {
    const t = gateway();
    ticker = setInterval(() => (t.clock as ManualClock).advance(step), 20);
    const a = await chainAccount(t);
    const done = (await a.send({ recipient: "9876512345", steps: [sms] })).body.data.chain_id as string;
    expect((await a.completed(done)).outcome).toBe("delivered");
    const waiting = await a.send({
      recipient: WHATSAPP_NEVER_READ,
      steps: [whatsapp, { ...sms, to: "9876512347", after: { on: "not_read", within_seconds: 604_800 } }],
    });
    const stranded = waiting.body.data.chain_id as string;
    await expect
      .poll(async () => (await a.chain(stranded)).body.data.steps.map((s: { status: string }) => s.status), {
        timeout: 15_000,
      })
      .toEqual(["delivered", "waiting"]);
    expect(await counted(t)).toEqual({ started: 2, completed: { delivered: 1 } });
    // Within the retention period nothing goes.
    expect(await t.gateway.ctx.chains.prune()).toBe(0);

    (t.clock as ManualClock).advance(DAY_MS);
    step = 5_000;
    await expect.poll(() => chainRows(t), { timeout: 30_000 }).toEqual({ chains: [], steps: [] });
    step = 200;
    expect((await a.chain(done)).status).toBe(404);

    const kept = (await a.send({ recipient: "9876512349", steps: [sms] })).body.data.chain_id as string;
    await a.completed(kept);
    expect(await t.gateway.ctx.chains.prune()).toBe(0);
    expect(await chainRows(t)).toEqual({ chains: [kept], steps: [kept] });
    expect(await counted(t)).toEqual({ started: 3, completed: { delivered: 2 } });
    clearInterval(ticker);

    const env = { DATABASE_URL: t.db.url };
    // The CLI host's first command loads the program (slow on a busy machine).
    const first = await runCli(["chains", "list", "--account", a.account.username, "--json"], env, {
      timeoutMs: 90_000,
    });
    expect(first.code, first.stderr).toBe(0);
    const listed = JSON.parse(first.stdout);
    expect(listed).toMatchObject([
      { chain_id: kept, account: a.account.username, recipient: "9876512349", status: "completed", steps: 1 },
    ]);
    const text = await cliOk(["chains", "list", "--status", "running"], env);
    expect(text.trim()).toBe("no chains");
    const shown = await cliOk(["chains", "show", kept], env);
    expect(shown).toContain(`chain ${kept} of ${a.account.username} to 9876512349: completed (delivered)`);
    expect(shown).toMatch(/1\s+sms\s+9876512349\s+-\s+\S+\s+delivered/);
    const shownJson = JSON.parse(await cliOk(["chains", "show", kept, "--json"], env));
    expect(shownJson).toMatchObject({ chain_id: kept, account: a.account.username, outcome: "delivered" });
    for (const args of [
      ["chains", "show", done],
      ["chains", "list", "--status", "done"],
      ["chains", "list", "--limit", "0"],
      ["chains", "list", "--account", "nobody"],
    ]) {
      const bad = await runCli(args, env);
      expect(bad.code, args.join(" ")).not.toBe(0);
      expect(bad.stderr).not.toMatch(STACK_TRACE);
    }
    expect((await runCli(["chains", "show", done], env)).stderr).toContain(`No chain ${done}`);
  }, 120_000);
});
