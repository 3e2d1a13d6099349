import { beforeAll, expect, it } from "vitest";
import { loadConfig } from "../../../src/base/runtime/config.js";
import { openStore } from "../../../src/base/store/store.js";
import { createEmptyDatabase, earlyAccountRow, migrateTo } from "../../helpers/empty-database.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { operatorCall } from "../../helpers/legacy.js";
import { balanceOf, FAST_SIMULATOR } from "../../helpers/sms.js";
import { countDebits, FAMILIES, sendOn } from "../../helpers/sms-families.js";

const ENTITY = "1101160000000000051";
const TEMPLATES = [
  "Your OTP is {#var#}. Do not share it with anyone.",
  "Dear {#var#},\nyour order {#var#} has shipped.",
];

interface Case {
  name: string;
  message: string;
  /** Strict: undefined when accepted, else where it stops and what the template has there. */
  strict?: { position: number; expected: string };
  /** Lenient (runs of whitespace as one space) accepts it. */
  lenient: boolean;
}

const CASES: Case[] = [
  { name: "as registered", message: "Your OTP is 4821. Do not share it with anyone.", lenient: true },
  { name: "a space inside a {#var#} value", message: "Your OTP is 48 21. Do not share it with anyone.", lenient: true },
  { name: "the registered line break", message: "Dear Asha,\nyour order A-77 has shipped.", lenient: true },
  {
    name: "a double space",
    message: "Your OTP is 4821.  Do not share it with anyone.",
    strict: { position: 18, expected: "Do not share it with anyone." },
    lenient: true,
  },
  {
    name: "a space for the registered line break",
    message: "Dear Asha, your order A-77 has shipped.",
    strict: { position: 10, expected: "\nyour order {#var#} has shipped." },
    lenient: true,
  },
  {
    name: "a line break for a space",
    message: "Your OTP is 4821.\nDo not share it with anyone.",
    strict: { position: 17, expected: " Do not share it with anyone." },
    lenient: true,
  },
  {
    name: "text after the template's end",
    message: "Your OTP is 4821. Do not share it with anyone. Team",
    strict: { position: 46, expected: "" },
    lenient: false,
  },
  {
    name: "a changed word (both modes refuse)",
    message: "Your OTP is 4821. Do NOT share it with anyone.",
    strict: { position: 21, expected: "not share it with anyone." },
    lenient: false,
  },
];

describeEachEngine("Strict DLT template matching", (engine) => {
  const gateway = useTestGateway(engine, { env: { ...FAST_SIMULATOR, LEGACY_THROTTLE_PER_SECOND: "0" } });
  let operator: TestAccount;
  const op = (method: string, path: string, json?: unknown) => operatorCall(gateway(), operator, method, path, json);

  async function dltAccount(): Promise<TestAccount> {
    const account = await buildAccount(gateway(), { dltScrubbing: true, credits: { sms: 1000 } });
    const u = account.username;
    await op("POST", `/accounts/${u}/dlt/headers`, { header: "SWBRD" });
    await op("POST", `/accounts/${u}/dlt/entities`, { entity_id: ENTITY });
    for (const [i, content] of TEMPLATES.entries()) {
      await op("POST", `/accounts/${u}/templates`, {
        name: `t${i}`,
        content,
        entity_id: ENTITY,
        dlt_template_id: `110716000000000005${i}`,
        approve: true,
      });
    }
    return account;
  }

  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
  });

  it("is strict for a new account: each case decided alike on every family, refusals saying where, charging nothing", async () => {
    const t = gateway();
    for (const family of FAMILIES) {
      const account = await dltAccount();
      expect((await op("GET", `/accounts/${account.username}`)).body.data.dlt_matching).toBe("strict");
      for (const c of CASES) {
        const before = await balanceOf(t, account);
        const debits = await countDebits(t, account);
        const answer = await sendOn(t, account, family, { route: "T", message: c.message });
        const what = `${family}: ${c.name}: ${answer.message ?? ""}`;
        if (c.strict === undefined) {
          expect(answer.accepted, what).toBe(true);
          continue;
        }
        expect(answer.accepted, what).toBe(false);
        expect(answer.message, what).toContain(`at character ${c.strict.position}`);
        expect(answer.message, what).toContain(
          c.strict.expected === "" ? "the end of the text" : JSON.stringify(c.strict.expected),
        );
        if (family === "legacy" || family === "xml") expect(answer.code, what).toBe("-8");
        else {
          expect(answer.status, what).toBe(422);
          expect(answer.error, what).toMatchObject({
            code: "dlt_template_mismatch",
            position: c.strict.position,
            expected: c.strict.expected,
          });
          expect(String(answer.error?.dlt_template_id), what).toMatch(/^11071600000000000/);
        }
        expect(await countDebits(t, account), what).toBe(debits);
        expect(await balanceOf(t, account), what).toBe(before);
      }
    }
  });

  it("collapses whitespace once the operator switches the account to lenient, and is strict again when switched back", async () => {
    const t = gateway();
    const account = await dltAccount();
    const switched = await op("PATCH", `/accounts/${account.username}`, { dlt_matching: "lenient" });
    expect(switched.body.data.dlt_matching).toBe("lenient");
    for (const family of FAMILIES) {
      for (const c of CASES) {
        const answer = await sendOn(t, account, family, { route: "T", message: c.message });
        expect(answer.accepted, `${family}: ${c.name}: ${answer.message ?? ""}`).toBe(c.lenient);
      }
    }
    // Positions count in the text as sent, not in its collapsed form.
    const refused = await sendOn(t, account, "v2", {
      route: "T",
      message: "Your   OTP is 4821. Do NOT share it with anyone.",
    });
    expect(refused.error).toMatchObject({ position: 23, expected: "not share it with anyone." });
    await op("PATCH", `/accounts/${account.username}`, { dlt_matching: "strict" });
    // The very next send: the change drops the account's cached template index at once.
    const strictAgain = await sendOn(t, account, "v2", { route: "T", message: CASES[3]!.message });
    expect(strictAgain.code).toBe("dlt_template_mismatch");
  });

  it("refuses a matching mode other than strict or lenient", async () => {
    const account = await dltAccount();
    const response = await call(gateway(), "PATCH", `/admin/api/accounts/${account.username}`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      json: { dlt_matching: "loose" },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe("invalid_request");
  });

  it("names no template when the text has nothing in common with any of several", async () => {
    const t = gateway();
    const account = await dltAccount();
    const response = await call(t, "POST", "/api/v2/sms/send", {
      headers: { authorization: `Bearer ${account.apiKey}` },
      json: { sender_id: "SWBRD", recipient: "9876543210", message: "Hello there, a text of no template" },
    });
    expect(response.status).toBe(422);
    expect(response.body.error).toEqual({
      code: "dlt_template_mismatch",
      legacy_code: -8,
      position: 0,
      request_id: expect.any(String),
    });
    expect(response.body.message).toContain(
      "the text matches none of the account's 2 approved templates, not even at its first character.",
    );
    // One letter in common is a closest template again, named with what it expects.
    const near = await call(t, "POST", "/api/v2/sms/send", {
      headers: { authorization: `Bearer ${account.apiKey}` },
      json: { sender_id: "SWBRD", recipient: "9876543210", message: "Yes, a text of no template" },
    });
    expect(near.body.error).toMatchObject({ position: 1, expected: "our OTP is {#var#}. Do not share it with" });
  });

  it("explains against the template a send names with dlt_template_id", async () => {
    const t = gateway();
    const account = await dltAccount();
    const response = await call(t, "POST", "/api/v2/sms/send", {
      headers: { authorization: `Bearer ${account.apiKey}` },
      json: {
        sender_id: "SWBRD",
        recipient: "9876543210",
        message: "Your OTP is 4821.",
        dlt_template_id: "1107160000000000051",
      },
    });
    expect(response.status).toBe(422);
    expect(response.body.error).toMatchObject({
      code: "dlt_template_mismatch",
      position: 0,
      expected: "Dear {#var#},\nyour order {#var#} has shi",
      dlt_template_id: "1107160000000000051",
    });
  });
});

describeEachEngine("migration 0042 on accounts that exist before it", (engine) => {
  it("keeps them lenient; an account created after it is strict", async () => {
    const empty = await createEmptyDatabase(engine);
    const store = await openStore(loadConfig({ DATABASE_URL: empty.url }).database);
    try {
      await migrateTo(store, engine, "0039_verifications");
      await store.db.insertInto("accounts").values(earlyAccountRow("before")).execute();
      await store.migrate();
      await store.db.insertInto("accounts").values(earlyAccountRow("after")).execute();
      const rows = await store.db.selectFrom("accounts").select(["username", "dlt_matching"]).orderBy("id").execute();
      expect(rows).toEqual([
        { username: "before", dlt_matching: "lenient" },
        { username: "after", dlt_matching: "strict" },
      ]);
    } finally {
      await store.close();
      await empty.drop();
    }
  });
});
