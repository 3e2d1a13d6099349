// The legacy send's phonenumber list is bounded as the v2 bulk call's recipients are (100,000 a
// request; the v2 send takes one): at the bound the send is accepted whole, one past it the
// request is refused whole with -5, nothing stored and nothing charged. Through the real server,
// a POST form as a client sends a long list (a query string of this size is no request).
import { beforeAll, expect, it } from "vitest";
import { MAX_RECIPIENTS_PER_REQUEST } from "../../../src/channels/sms/recipients.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { expectBroadcastId, legacy, sendParams, type TextResponse } from "../../helpers/legacy.js";

const BOUND = 100_000;

/** `count` different Indian mobiles. */
function numbers(count: number, start = 9_100_000_000): string[] {
  return Array.from({ length: count }, (_, i) => String(start + i));
}

describeEachEngine("legacy send: at most 100,000 numbers a request", (engine) => {
  // No worker: the accepted numbers stay queued (the bound is the answer and the charge, not delivery).
  const gateway = useTestGateway(engine, { env: { LEGACY_THROTTLE_PER_SECOND: "0" }, roles: ["api"] });
  let account: TestAccount;

  beforeAll(async () => {
    account = await buildAccount(gateway(), { credits: { sms: 2 * BOUND + 10 } });
  });

  async function footprint(t: TestGateway) {
    const db = t.db.store.db;
    const messages = await db
      .selectFrom("messages")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("account_id", "=", account.id)
      .executeTakeFirstOrThrow();
    const wallet = await db
      .selectFrom("wallets")
      .select("balance")
      .where("account_id", "=", account.id)
      .where("wallet", "=", "sms")
      .executeTakeFirstOrThrow();
    return { messages: Number(messages.n), sms: Number(wallet.balance) };
  }

  function expectTooMany(response: TextResponse, given: number, what: string) {
    expect({ status: response.status, text: response.text }, what).toEqual({ status: 200, text: "-5" });
    expect(response.headers.get("content-type"), what).toBe("text/plain; charset=utf-8");
    expect(response.headers.get("x-error-message"), what).toBe(
      `At most ${BOUND} numbers per request (phonenumber has ${given}); send the rest in another request.`,
    );
  }

  it("is the v2 bulk call's recipients per call", async () => {
    expect(MAX_RECIPIENTS_PER_REQUEST).toBe(BOUND);
    const t = gateway();
    const document = await call(t, "GET", "/api/v2/openapi.json");
    expect(document.status).toBe(200);
    expect(document.body.components.schemas.BulkSendRequest.properties.recipients.maxItems).toBe(BOUND);
  });

  it("one past the bound is refused whole, -5, nothing stored or charged; on both prefixes, with repeats counted", async () => {
    const t = gateway();
    const before = await footprint(t);
    const over = numbers(BOUND + 1);
    for (const path of ["/httpapi/send", "/api/secure_api/httpapi/send"]) {
      expectTooMany(
        await legacy(t, path, sendParams(account, { phonenumber: over.join(",") }), "POST"),
        BOUND + 1,
        path,
      );
    }
    // `mobile`, the parameter's other name; blanks are not numbers, repeats are (counted as given).
    const repeated = [...numbers(BOUND), "9100000000"];
    expectTooMany(
      await legacy(
        t,
        "/httpapi/send",
        sendParams(account, { phonenumber: undefined, mobile: `${repeated.join(", ")},,` }),
        "POST",
      ),
      BOUND + 1,
      "mobile with a repeat",
    );
    // Route V (a voice call) takes one number; an over-long list is the same refusal.
    expectTooMany(
      await legacy(t, "/httpapi/send", sendParams(account, { route: "V", phonenumber: over.join(",") }), "POST"),
      BOUND + 1,
      "route V",
    );
    expect(await footprint(t)).toEqual(before);
    // The account still sends.
    expectBroadcastId(await legacy(t, "/httpapi/send", sendParams(account)), account);
    expect(await footprint(t)).toEqual({ messages: before.messages + 1, sms: before.sms - 1000 });
  });

  it("at the bound the whole list is accepted as one broadcast, each number charged once", async () => {
    const t = gateway();
    const before = await footprint(t);
    // Blanks around the list's commas are not numbers: the list is still exactly the bound.
    const list = `${numbers(BOUND, 9_200_000_000).join(",")},,`;
    const answer = await legacy(t, "/httpapi/send", sendParams(account, { phonenumber: list }), "POST");
    const broadcastId = expectBroadcastId(answer, account);
    const rows = await t.db.store.db
      .selectFrom("messages")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("broadcast_id", "=", broadcastId)
      .executeTakeFirstOrThrow();
    expect(Number(rows.n)).toBe(BOUND);
    expect(await footprint(t)).toEqual({ messages: before.messages + BOUND, sms: before.sms - BOUND * 1000 });
    // 100,000 messages written and charged: 2.5–5 s alone, over 30 s on a busy 2-core CI machine.
  }, 120_000);
});
