// Legacy values written with spaces around them, as URL templates leave them (`type= 2`,
// `type=2+`): read as the value, like phonenumber, route and schedule are. `type` with a space
// was not 2, and the UTF-16BE hex was sent as the SMS's text (and charged).
import { expect, it } from "vitest";
import { describeEnginesTogether } from "../../helpers/engines.js";
import { buildAccount, useTestGateway } from "../../helpers/gateway.js";
import { expectBroadcastId, legacy, sendParams } from "../../helpers/legacy.js";

/** "नमस्ते" as UTF-16BE hex. */
const NAMASTE_HEX = "0928092E0938094D09240947";

describeEnginesTogether("legacy: values with spaces around them", (engine) => {
  const gateway = useTestGateway(engine, { env: { LEGACY_THROTTLE_PER_SECOND: "0" } });

  it("type=2 with spaces around it decodes the hex; the hex is never sent as text", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    for (const type of [" 2", "2 ", "\t2\n"]) {
      const params = sendParams(account, { sender_id: "PROMOTIONAL", route: "P", type, message: NAMASTE_HEX });
      const id = expectBroadcastId(await legacy(t, "/httpapi/send", params, "POST"), account, JSON.stringify(type));
      const row = await t.db.store.db
        .selectFrom("messages")
        .select("body")
        .where("broadcast_id", "=", id)
        .executeTakeFirstOrThrow();
      expect(row.body, JSON.stringify(type)).toBe("नमस्ते");
    }
  });
});
