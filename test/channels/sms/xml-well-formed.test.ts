// The XML API reads only well-formed XML 1.0 (audit L2), on both engines through the real server:
// a bare & or < in an attribute value and an entity reference other than the five predefined ones
// and character references are malformed, -9, nothing sent or charged, as an XML 1.0 parser
// (expat, libxml2) refuses them; what XML allows (a > in an attribute, the predefined entities,
// character references) is still read.
import { expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { credentials, expectBroadcastId, pushsms, xmlSend } from "../../helpers/legacy.js";
import { balanceOf, FAST_SIMULATOR, statusOf } from "../../helpers/sms.js";

describeEachEngine("XML API: only well-formed documents", (engine) => {
  const gateway = useTestGateway(engine, { env: { ...FAST_SIMULATOR, LEGACY_THROTTLE_PER_SECOND: "0" } });

  /** A document of one message whose `msg` attribute is written exactly as given (not escaped). */
  function rawMessage(account: TestAccount, msg: string): string {
    return pushsms(credentials(account), { messages: [{ pno: "9876543210", msg: "PLACE" }] }).replace(
      'msg="PLACE"',
      `msg="${msg}"`,
    );
  }

  it("answers -9 for a bare & or < in an attribute and for an undeclared entity, sending and charging nothing", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const good = pushsms(credentials(account), { messages: [{ pno: "9876543210", msg: "hello" }] });
    const cases: [string, string][] = [
      ["bare & and < in an attribute", rawMessage(account, "a & b < c")],
      ["bare < in an attribute", rawMessage(account, "a < b")],
      ["bare & in an attribute", rawMessage(account, "fish & chips")],
      ["& without ; in an attribute", rawMessage(account, "R&D team")],
      ["undeclared entity in an attribute", rawMessage(account, "Your OTP is &foo;. Do not share it with anyone.")],
      ["an HTML entity in an attribute", rawMessage(account, "a&nbsp;b")],
      ["undeclared entity in element text", good.replace("<senderid>SWBRD</senderid>", "<senderid>SW&foo;</senderid>")],
      ["bare & in element text", good.replace("<senderid>SWBRD</senderid>", "<senderid>SW & BRD</senderid>")],
      ["character reference without digits", rawMessage(account, "a&#;b")],
      ["hex reference that is not hex", rawMessage(account, "a&#xZZ;b")],
    ];
    for (const [name, xml] of cases) {
      const answer = await xmlSend(t, xml);
      expect({ status: answer.status, text: answer.text }, name).toEqual({ status: 200, text: "-9" });
      expect(answer.headers.get("x-error-message"), name).toMatch(/^Malformed XML received: /);
    }
    expect(await balanceOf(t, account)).toBe(10);
    const stored = await t.db.store.db
      .selectFrom("messages")
      .select("id")
      .where("account_id", "=", account.id)
      .execute();
    expect(stored).toEqual([]);
  });

  it("still reads what XML allows: > in an attribute, the predefined entities, character references", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const id = expectBroadcastId(
      await xmlSend(t, rawMessage(account, "a > b &amp; c &lt; d &#233;t&#xE9; &quot;q&quot; &apos;s&apos;")),
      account,
      "send",
    );
    const status = await statusOf(t, account, id);
    expect(status.status, status.text).toBe(200);
    const stored = await t.db.store.db
      .selectFrom("messages")
      .select("body")
      .where("account_id", "=", account.id)
      .execute();
    expect(stored.map((row) => row.body)).toEqual([`a > b & c < d été "q" 's'`]);
  });
});
