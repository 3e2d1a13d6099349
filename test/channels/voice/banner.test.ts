// The first start's banner says where calls go: the simulated provider, or the call provider
// VOICE_CONNECTOR=voice-http names (it said "the simulated provider" whatever the setting).
import { expect, it } from "vitest";
import { createLogger, startGateway } from "../../../src/app/gateway.js";
import { systemClock } from "../../../src/base/core/clock.js";
import { createTestDatabase, describeEachEngine } from "../../helpers/engines.js";
import { testConfig } from "../../helpers/gateway.js";

async function bannerWith(engine: Parameters<typeof createTestDatabase>[0], env: Record<string, string>) {
  const db = await createTestDatabase(engine);
  const gateway = await startGateway({
    config: testConfig(db, env),
    roles: ["api"],
    clock: systemClock,
    store: db.store,
    logger: createLogger({ logLevel: "silent" }),
    bootstrap: true,
    openApiAtStart: false,
  });
  try {
    // The voice lines: the first one and those indented under it.
    const lines = gateway.bootstrapped!.demo.channels;
    const from = lines.findIndex((line) => line.startsWith("voice:"));
    const end = lines.findIndex((line, i) => i > from && !line.startsWith(" "));
    return lines.slice(from, end === -1 ? undefined : end).join("\n");
  } finally {
    await gateway.stop();
    await db.drop();
  }
}

describeEachEngine("voice line of the first start's banner", (engine) => {
  it("names the call provider with VOICE_CONNECTOR=voice-http, and the simulator without it", async () => {
    const http = await bannerWith(engine, {
      VOICE_CONNECTOR: "voice-http",
      VOICE_HTTP_URL: "https://calls.example.net",
      VOICE_HTTP_ACCOUNT_SID: "AC123",
      VOICE_HTTP_AUTH_TOKEN: "secret-token",
      VOICE_CALLBACK_URL: "https://sms.example.com",
    });
    expect(http).toContain("calls go to the call provider at https://calls.example.net (VOICE_CONNECTOR=voice-http");
    expect(http).not.toContain("simulated");
    expect(http).toContain("voice-caller-ids approve --account demo");
    expect(http).not.toContain("secret-token");

    const simulated = await bannerWith(engine, {});
    expect(simulated).toContain("calls go to the simulated provider (VOICE_CONNECTOR=simulator");
    expect(simulated).not.toContain("call provider at");
  });
});
