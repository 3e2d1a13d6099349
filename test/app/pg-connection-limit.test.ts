// PostgreSQL refusing a new connection because every one it allows is taken (53300
// too_many_connections: "sorry, too many clients already", or a role's CONNECTION LIMIT) is a
// temporary refusal, as a server restarting is: 503 with Retry-After, never 500. On a shared
// server (several processes, test runs among them, each with its pool) the gateway's pool met it
// under heavy load whenever it opened a connection: GET and PATCH /admin/api/accounts/{username}
// and Meta's callbacks answered 500 internal_error. A role with CONNECTION LIMIT 0, set once the
// gateway is up, refuses every new connection of its pool the same way, whatever else runs.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Gateway, startGateway } from "../../src/app/gateway.js";
import { systemClock } from "../../src/base/core/clock.js";
import type { Store } from "../../src/base/store/contract.js";
import { openStore } from "../../src/base/store/store.js";
import { signMetaPayload } from "../../src/channels/whatsapp/meta-webhook.js";
import { updateWhatsAppSettings } from "../../src/channels/whatsapp/settings.js";
import { inboundCallback } from "../channels/whatsapp/fake-graph.js";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../helpers/engines.js";
import { buildAccount, type TestAccount, type TestGateway, testConfig } from "../helpers/gateway.js";

const required = process.env.SWITCHBOARD_REQUIRE_POSTGRES === "1";
if (required && !postgresAvailable) throw new Error("SWITCHBOARD_REQUIRE_POSTGRES=1 but PostgreSQL is not reachable");
const suite = postgresAvailable ? describe : describe.skip;

const APP_SECRET = "limit-app-secret-0123456789";
const PHONE_NUMBER_ID = "555000444555";
/** The gateway's pool, larger than the connections it holds after the first requests. */
const POOL_SIZE = 30;
/** Requests at once: more connections than the pool may hold, so it opens new ones. */
const AT_ONCE = POOL_SIZE + 5;

suite("PostgreSQL refusing new connections (53300)", () => {
  const role = `sb_limited_${randomBytes(4).toString("hex")}`;
  let db: TestDatabase;
  let store: Store;
  let gateway: Gateway;
  let t: TestGateway;
  let operator: TestAccount;
  let account: TestAccount;
  const admin = async (text: string) => {
    const client = new pg.Client({ connectionString: db.postgresUrl });
    await client.connect();
    try {
      return await client.query(text);
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    db = await createTestDatabase("postgres");
    const schema = db.schema!;
    await admin(`create role ${role} login`);
    await admin(
      `grant all on schema ${schema} to ${role}; grant all on all tables in schema ${schema} to ${role}; grant all on all sequences in schema ${schema} to ${role}`,
    );
    const url = new URL(db.postgresUrl!);
    url.username = role;
    store = await openStore({ engine: "postgres", url: url.toString() }, { pgSchema: schema, pgPoolSize: POOL_SIZE });
    gateway = await startGateway({
      config: testConfig(db, { WHATSAPP_APP_SECRET: APP_SECRET }),
      roles: ["api"],
      clock: systemClock,
      store,
      openApiAtStart: false,
    });
    t = { db, gateway, url: gateway.url ?? "", clock: systemClock, config: gateway.ctx.config } as TestGateway;
    operator = await buildAccount(t, { role: "operator", sender: null });
    account = await buildAccount(t, { credits: { whatsapp: 10 }, sender: null });
    await updateWhatsAppSettings(db.store.db, systemClock, account.id, {
      enabled: true,
      phone_number_id: PHONE_NUMBER_ID,
      display_phone_number: "15550004455",
      waba_id: "400000000055",
      access_token: "simulated",
    });
  });
  afterAll(async () => {
    await admin(`alter role ${role} connection limit -1`).catch(() => undefined);
    await gateway?.stop();
    await store?.close().catch(() => undefined);
    await admin(`drop owned by ${role}; drop role if exists ${role}`).catch(() => undefined);
    await db?.drop();
  });

  it("answers GET and PATCH /admin/api/accounts/{username} and Meta's callbacks 503 with Retry-After, never 500", async () => {
    const path = `/admin/api/accounts/${account.username}`;
    const headers = { authorization: `Bearer ${operator.apiKey}`, "content-type": "application/json" };
    const callback = (i: number) => {
      const body = JSON.stringify(
        inboundCallback({
          wabaId: "400000000055",
          phoneNumberId: PHONE_NUMBER_ID,
          from: "919812300055",
          messageId: `wamid.limit-${i}`,
          text: `hello ${i}`,
        }),
      );
      return fetch(`${t.url}/webhooks/whatsapp`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-hub-signature-256": signMetaPayload(body, APP_SECRET) },
        body,
      });
    };
    const send = (i: number) =>
      i % 3 === 0
        ? fetch(`${t.url}${path}`, { headers })
        : i % 3 === 1
          ? fetch(`${t.url}${path}`, { method: "PATCH", headers, body: JSON.stringify({ flood_limit: i }) })
          : callback(i);
    for (const i of [0, 1, 2]) expect((await send(i)).status).toBe(200);
    // Connections the pool opens from here on are refused; those it holds stay.
    await admin(`alter role ${role} connection limit 0`);
    let statuses: number[];
    try {
      const held = await admin(`select count(*)::int as n from pg_stat_activity where usename = '${role}'`);
      // Fewer than AT_ONCE requests need at once (the LISTEN connection is one of these).
      expect(held.rows[0].n).toBeLessThan(POOL_SIZE);
      statuses = await Promise.all(
        Array.from({ length: AT_ONCE }, async (_, i) => {
          const answer = await send(i + 3);
          const body = await answer.text();
          expect([200, 503], body).toContain(answer.status);
          if (answer.status === 503) {
            expect(answer.headers.get("retry-after"), body).toBe("1");
            expect(JSON.parse(body).error.code, body).toBe("service_unavailable");
          }
          return answer.status;
        }),
      );
    } finally {
      await admin(`alter role ${role} connection limit -1`);
    }
    expect(statuses.filter((status) => status === 503).length, String(statuses)).toBeGreaterThan(0);
    // Once connections are allowed again, the same calls succeed.
    for (const i of [100, 101, 102]) expect((await send(i)).status).toBe(200);
  });
});
