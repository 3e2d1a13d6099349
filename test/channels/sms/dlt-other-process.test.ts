// DLT changes made by another process reach a running SQLite gateway's sends: `switchboard`
// commands next to it send it no signal (signals cross only the threads of one process), so
// every change moves `dlt_version`, which the send path's caches read at most every 2 s
// (domain/accounts/dlt-version.ts). A link approved and a template rejected (the two lists kept
// 60 s) each decide the next sends within that bound. SQLite only: on PostgreSQL the command's NOTIFY carries the change, as it does for
// price cards (test/app/cli/cli-prices.test.ts, a server process and the CLI); a test gateway in
// this process listens on its database's own channel names, which the CLI does not use.
import { describe, expect, it } from "vitest";
import { cliOk } from "../../helpers/cli.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { FAST_SIMULATOR, keyOf } from "../../helpers/sms.js";

const ENTITY = "1101160000000000051";
const TEMPLATE = "Track your order at {#var#} today";
const LINKED = "Track your order at https://shop.example.com/t/42 today";
/** Longer than the version's 2 s and a send's own time; far below the caches' 60 s. */
const REACHED_WITHIN_MS = 4_000;

async function send(t: TestGateway, account: TestAccount, text: string) {
  return call(t, "POST", "/api/v2/sms/send", {
    headers: keyOf(account),
    json: { recipient: "9876543210", message: text, sender_id: "SWBRD", route: "T" },
  });
}

/** Sends `text` until its answer's code is `code` (undefined: accepted); how long that took. */
async function untilDecided(t: TestGateway, account: TestAccount, text: string, code: string | undefined) {
  const started = Date.now();
  for (;;) {
    const answer = await send(t, account, text);
    const got = answer.status === 200 ? undefined : answer.body?.error?.code;
    if (got === code) return Date.now() - started;
    if (Date.now() - started > REACHED_WITHIN_MS) {
      throw new Error(`still ${answer.status} ${got ?? "accepted"} after ${REACHED_WITHIN_MS} ms, waiting for ${code}`);
    }
    // A send is the probe; ten a second keep the bound's measure within 0.1 s.
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("DLT changes by the CLI reach a running gateway [sqlite]", () => {
  const gateway = useTestGateway("sqlite", { env: FAST_SIMULATOR });

  it("a link approved and a template rejected by the CLI decide the next sends within 2 s", {
    timeout: 60_000,
  }, async () => {
    const t = gateway();
    const account = await buildAccount(t, { dltScrubbing: true, credits: { sms: 10_000 } });
    const env = { DATABASE_URL: t.db.url };
    const u = account.username;
    await cliOk(["dlt", "headers", "add", "--account", u, "--header", "SWBRD"], env);
    await cliOk(["dlt", "entities", "add", "--account", u, "--entity-id", ENTITY], env);
    const add = ["templates", "add", "--account", u, "--name", "track", "--content", TEMPLATE, "--entity-id", ENTITY];
    const template = JSON.parse(await cliOk([...add, "--approve", "--json"], env));

    // Loaded into the caches: the template matches, the link is on no list.
    expect((await send(t, account, LINKED)).body.error.code).toBe("dlt_url_not_whitelisted");

    await cliOk(["dlt", "urls", "add", "--account", u, "--entity-id", ENTITY, "--url", "shop.example.com/t/"], env);
    expect(await untilDecided(t, account, LINKED, undefined)).toBeLessThan(REACHED_WITHIN_MS);

    await cliOk(["templates", "reject", "--id", String(template.id)], env);
    expect(await untilDecided(t, account, LINKED, "dlt_template_mismatch")).toBeLessThan(REACHED_WITHIN_MS);
  });
});
