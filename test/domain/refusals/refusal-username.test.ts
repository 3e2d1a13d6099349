// A send refused for a wrong password keeps the username it named (audit F15), on both engines
// through the real server: the legacy, XML and email families' -7 rows carry `username` (never
// the password) with no account, and the operator finds them with `username=` in any case, with
// `account=-` too, and `refusals list --username`; a key's refusal names none; a bad
// value is a 400 naming it.
import { beforeAll, expect, it } from "vitest";
import { until } from "../../domain/webhooks/receiver.js";
import { cliOk } from "../../helpers/cli.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { legacy, pushsms, sendParams, xmlSend } from "../../helpers/legacy.js";

describeEachEngine("refusals by the username a login named", (engine) => {
  const gateway = useTestGateway(engine);
  let t: TestGateway;
  let operator: TestAccount;
  let retail: TestAccount;

  const operatorList = (query: string) =>
    call(t, "GET", `/admin/api/refusals?${query}`, { headers: { authorization: `Bearer ${operator.apiKey}` } });

  beforeAll(async () => {
    t = gateway();
    operator = await buildAccount(t, { role: "operator", sender: null });
    retail = await buildAccount(t, { credits: { sms: 10, email: 10 } });
    const wrong = { username: retail.username.toUpperCase(), password: "nope-not-it" };
    expect((await legacy(t, "/httpapi/send", sendParams(retail, wrong))).text).toBe("-7");
    expect((await xmlSend(t, pushsms(wrong, { messages: [{ pno: "9876543210", msg: "xml" }] }))).text).toBe("-7");
    const email = await legacy(
      t,
      "/httpemailapi/v1/send",
      { ...wrong, from: "news@shop.example.com", to: "asha@example.org", subject: "S", html: "<p>x</p>" },
      "POST",
    );
    expect(email.text).toBe("-7");
    // Signed in, refused for its sender: the account and the username it logged in with.
    expect((await legacy(t, "/httpapi/send", sendParams(retail, { sender_id: "NOSUCH" }))).text).toMatch(/^-\d+$/);
    // A wrong key names no username, though the request carries one.
    const byKey = await legacy(t, "/httpapi/send", { ...sendParams(retail), api_key: "sb_not_a_key" });
    expect(byKey.text).toBe("-7");
    await until(async () => (await operatorList("limit=500")).body.data.length >= 5);
  });

  it("keeps the username (never the password) and finds the rows by it in any case", async () => {
    const found = await operatorList(`username=${retail.username}`);
    expect(found.status, found.text).toBe(200);
    const rows = found.body.data as Array<Record<string, unknown>>;
    expect(rows.map((row) => [row.family, row.account, row.answer])).toEqual([
      ["legacy", retail.username, expect.stringMatching(/^-\d+$/)],
      ["email", null, "-7"],
      ["xml", null, "-7"],
      ["legacy", null, "-7"],
    ]);
    expect(rows.slice(1).map((row) => row.username)).toEqual(Array(3).fill(retail.username.toUpperCase()));
    expect(rows[0]!.username).toBe(retail.username);
    expect(JSON.stringify(rows)).not.toContain("nope-not-it");
    const stored = await t.db.store.db.selectFrom("refusals").selectAll().execute();
    expect(JSON.stringify(stored)).not.toContain("nope-not-it");

    const unauthenticated = await operatorList(`account=-&username=${retail.username.toLowerCase()}&code=unauthorized`);
    expect(unauthenticated.body.data.map((row: { family: string }) => row.family)).toEqual(["email", "xml", "legacy"]);
    const keyRow = (await operatorList("account=-&limit=500")).body.data.find(
      (row: { reason: string; username: string | null; family: string }) =>
        row.family === "legacy" && row.username === null,
    );
    expect(keyRow).toBeDefined();
    expect((await operatorList("username=someone-else")).body.data).toEqual([]);
  });

  it("`refusals list --username` reads the same rows", async () => {
    const env = { DATABASE_URL: t.db.url, SQLITE_SYNCHRONOUS: "NORMAL" };
    const listed = JSON.parse(await cliOk(["refusals", "list", "--username", retail.username, "--json"], env));
    expect(listed.data.map((row: { family: string }) => row.family)).toEqual(["legacy", "email", "xml", "legacy"]);
    const text = await cliOk(["refusals", "list", "--account", "-", "--username", retail.username], env);
    expect(text).toContain(`- (${retail.username.toUpperCase()})`);
  }, 120_000);

  it("answers a bad username 400 naming it", async () => {
    const long = await operatorList(`username=${"u".repeat(65)}`);
    expect(long.status).toBe(400);
    const nul = await operatorList("username=a%00b");
    expect(nul.status).toBe(400);
    expect(nul.body.error).toMatchObject({ code: "invalid_request", field: "username" });
  });
  it("names the username the family tried when an empty api_key lets the password login through", async () => {
    // The legacy family reads `api_key` before `apikey`: an empty api_key is no key, so this is a
    // password login under `username` whatever apikey says, and its row names that username.
    const tried = `${retail.username}-EMPTYKEY`;
    const sent = await legacy(t, "/httpapi/send", {
      ...sendParams(retail, { username: tried, password: "nope-not-it" }),
      api_key: "",
      apikey: "sb_not_a_key",
    });
    expect(sent.text).toBe("-7");
    await until(async () => (await operatorList(`username=${tried}`)).body.data.length === 1);
    const [row] = (await operatorList(`username=${tried}`)).body.data;
    expect(row).toMatchObject({ family: "legacy", account: null, answer: "-7", username: tried });
  });
});
