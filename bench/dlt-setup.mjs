// The demo account set up for bench/dlt-send.mjs (through bench/profile-send.mjs --dlt on|off),
// the same in both modes but for one setting: one template whose values are a link and a
// callback number, and the text that fills it; the operator's DLT_CHAIN_REQUIRED with the
// entity's chain declared; strict matching; the entity's white-lists of `entries` entries (nine
// in ten URLs, half of them prefixes, one in ten callback numbers; the text's link and number
// among them). On: DLT scrubbing on, so every check of issue 40 runs; off: DLT scrubbing off for
// the account, so none applies to the same text (nor the DLT checks of before: template, header,
// entity). The server then rests 5 s, so the setup's own work is not measured.
import { cli } from "./lib.mjs";

export const DLT_ENTITY = "1101160000000000001"; // the demo account's (src/app/bootstrap.ts)
export const DLT_TEMPLATE = "Your OTP is {#var#}. Track it at {#var#} or call {#var#}.";
/** The text's OTP, which bench/profile-send.mjs varies in every request (BENCH_VARY). */
export const DLT_CODE = "482913";
export const DLT_TEXT = "Your OTP is 482913. Track it at shop7.example.com/offers/42 or call 1800 123 4567.";

/** Server settings the mode needs (before it starts). */
export function dltEnv() {
  return { DLT_CHAIN_REQUIRED: "1", DLT_TM_ID: "1702000000000000099" };
}

/**
 * Sets up `account` (the demo account unless named; `entity` its DLT entity) for `mode`: "on",
 * "off" or "pre" (above).
 */
export async function setUpDlt(env, base, mode, entries, { account = "demo", entity = DLT_ENTITY } = {}) {
  cli(
    env,
    "templates",
    "add",
    "--account",
    account,
    "--name",
    "bench-links",
    "--content",
    DLT_TEMPLATE,
    ...["--entity-id", entity, "--approve"],
  );
  if (mode === "pre") {
    // Only for a build from before issue 40 (9ea122c; docs/benchmarks.md): its DLT checks
    // (template, header, entity) with scrubbing on. This build would refuse the text's link.
    await new Promise((resolve) => setTimeout(resolve, 5000));
    return;
  }
  cli(env, "accounts", "set", "--username", account, "--dlt-matching", "strict");
  cli(env, "dlt", "chains", "set", "--account", account, "--entity-id", entity, "--chain", "1702000000000000011");
  const operator = JSON.parse(
    cli(
      env,
      ...["accounts", "create", "--username", `bench-op-${account}`, "--password", "bench-op-password"],
      ...["--operator", "--json"],
    ),
  );
  const post = async (kind, body) => {
    const r = await fetch(`${base}/admin/api/accounts/${account}/dlt/${kind}`, {
      method: "POST",
      headers: { authorization: `Bearer ${operator.api_key}`, "content-type": "application/json" },
      body: JSON.stringify({ entity_id: entity, ...body }),
    });
    if (!r.ok) throw new Error(`${kind} ${JSON.stringify(body)}: ${r.status} ${await r.text()}`);
  };
  const entry = (i) =>
    i % 10 === 0
      ? ["callbacks", { number: `98${String(10_000_000 + i).slice(-8)}` }]
      : ["urls", { url: i % 2 ? `https://shop${i}.example.com/offers/` : `example${i}.in/app?id=${i}` }];
  await post("callbacks", { number: "1800 123 4567" });
  for (let from = 0; from < entries; from += 20) {
    await Promise.all(Array.from({ length: Math.min(20, entries - from) }, (_, k) => post(...entry(from + k))));
  }
  if (mode === "off") cli(env, "accounts", "set", "--username", account, "--dlt-scrubbing", "off");
  await new Promise((resolve) => setTimeout(resolve, 5000));
}
