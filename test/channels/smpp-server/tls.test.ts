// SMPP over TLS on SMPP_SERVER_TLS_PORT, on both engines, with a self-signed certificate made by
// the test (selfsigned, no network): a client that trusts it binds, submits and gets its
// receipt over TLS, and the operator sees the bind as TLS; a client that does not trust it,
// or speaks plain SMPP to the TLS port, gets no session and the server goes on; a TLS port
// without its certificate and key is a configuration error.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { generate } from "selfsigned";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../../src/base/runtime/config.js";
import { encodePdu } from "../../../src/base/smpp/index.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { startTestGateway, type TestGateway } from "../../helpers/gateway.js";
import { connectEsme, smppAccount, until } from "./client.js";
import { BIND_TRANSCEIVER, bindBody, RawClient } from "./raw-client.js";

let dir: string;
let cert: string;

beforeAll(async () => {
  const pems = await generate([{ name: "commonName", value: "smpp.switchboard.test" }], {
    keySize: 2048,
    extensions: [{ name: "subjectAltName", altNames: [{ type: 7, ip: "127.0.0.1" }] }],
  });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-smpp-tls-"));
  fs.writeFileSync(path.join(dir, "cert.pem"), pems.cert);
  fs.writeFileSync(path.join(dir, "key.pem"), pems.private);
  cert = pems.cert;
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describeEachEngine("SMPP server over TLS", (engine) => {
  let t: TestGateway;

  beforeAll(async () => {
    t = await startTestGateway(engine, {
      env: {
        SMPP_SERVER_PORT: "0",
        SMPP_SERVER_TLS_PORT: "auto",
        SMPP_SERVER_TLS_CERT: path.join(dir, "cert.pem"),
        SMPP_SERVER_TLS_KEY: path.join(dir, "key.pem"),
        SIMULATOR_LATENCY_MS: "20",
        SIMULATOR_FAILURE_RATE: "0",
      },
    });
  });

  afterAll(async () => {
    await t?.gateway.stop();
    await t?.db.drop();
  });

  const tlsPort = () => t.gateway.smpp!.ports.tlsPort!;

  it("binds, submits and delivers the receipt over TLS; the plain port is off", async () => {
    expect(t.gateway.smpp!.ports.port).toBeUndefined();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    const client = await connectEsme(tlsPort(), { ca: cert });
    expect((await client.bind("transceiver", account.username, account.smppPassword)).command_status).toBe(0);
    const answer = await client.submit({
      source_addr: "SWBRD",
      destination_addr: "9876543210",
      short_message: "over TLS",
      registered_delivery: 1,
    });
    expect(answer.command_status).toBe(0);
    const [receipt] = await client.waitDelivered(1);
    expect(receipt!.receipted_message_id).toBe(answer.message_id);
    const row = await t.db.store.db
      .selectFrom("smpp_binds")
      .select(["tls", "mode"])
      .where("account_id", "=", account.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ tls: 1, mode: "transceiver" });
  });

  it("gives no session to a client that does not trust the certificate, or speaks plain SMPP to the TLS port", async () => {
    const account = await smppAccount(t);
    await expect(connectEsme(tlsPort(), {})).rejects.toThrow(/self[- ]signed/i);
    const plain = new RawClient(tlsPort());
    await plain.connected();
    plain.send(encodePdu(BIND_TRANSCEIVER, 1, 0, bindBody(account)));
    await plain.untilClosed(10_000);
    await expect(plain.next(100)).rejects.toThrow();
    // The server goes on.
    const client = await connectEsme(tlsPort(), { ca: cert });
    expect((await client.bind("transmitter", account.username, account.smppPassword)).command_status).toBe(0);
    await until(() => t.gateway.smpp!.list().some((b) => b.username === account.username));
  });
});

describe("SMPP over TLS settings", () => {
  it("refuses a TLS port without its certificate and key", () => {
    let error: unknown;
    try {
      loadConfig({ DATABASE_URL: "sqlite::memory:", SMPP_SERVER_TLS_PORT: "3550" });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(String((error as Error).message)).toContain(
      "SMPP_SERVER_TLS_PORT needs SMPP_SERVER_TLS_CERT and SMPP_SERVER_TLS_KEY",
    );
  });
});
