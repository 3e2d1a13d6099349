// The carriers file (SWITCHBOARD_CARRIERS_FILE) and the gateway against an SMSC that is not
// ours: a gateway configured by a YAML file sends POST /api/v2/sms/send traffic over SMPP to
// Perl's Net::SMPP (libnet-smpp-perl) on loopback, whose receipts come back as delivered and
// failed; the file's errors are refused naming the file and the field.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway } from "../../../src/app/gateway.js";
import type { Engine } from "../../../src/base/store/engine.js";
import { listCarriers, listRoutes } from "../../../src/delivery/carriers/catalog.js";
import { applyCarriersFile, readCarriersFile } from "../../../src/delivery/carriers/config-file.js";
import { createTestDatabase, describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, startTestGateway, type TestGateway, testConfig } from "../../helpers/gateway.js";
import { balanceOf, sendSms, waitForStatus } from "../../helpers/sms.js";
import { PerlSmsc, perlSmscAvailable } from "./perl-smsc.js";

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "sb-carriers-"));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function file(name: string, text: string): Promise<string> {
  const where = path.join(dir, name);
  await fs.writeFile(where, text);
  return where;
}

describe("the carriers file", () => {
  it("reads JSON and YAML, and puts environment variables in for ${NAME}", async () => {
    const yaml = await file(
      "a.yaml",
      "connectors:\n  - { name: x, type: smpp, host: h, port: 2775, system_id: '${SB_ID}', password: 'p-${SB_PW}' }\nroutes: []\n",
    );
    expect(await readCarriersFile(yaml, { SB_ID: "acme", SB_PW: "7" })).toEqual({
      connectors: [{ name: "x", type: "smpp", host: "h", port: 2775, system_id: "acme", password: "p-7" }],
      routes: [],
    });
    const json = await file("a.json", JSON.stringify({ routes: [{ route: "T", prefix: "", connectors: [] }] }));
    expect(await readCarriersFile(json, {})).toEqual({ routes: [{ route: "T", prefix: "", connectors: [] }] });
  });

  it("refuses a file that is missing, does not parse, or is not shaped like one, naming the file", async () => {
    const cases: Array<[string, string, RegExp]> = [
      ["bad.yaml", "connectors: [ {", /does not parse/],
      ["bad.json", "{ connectors: }", /does not parse/],
      ["list.json", "[]", /must hold an object/],
      ["keys.yaml", "carriers: []\n", /unknown key\(s\) carriers/],
      ["shape.yaml", "connectors: { name: x }\n", /connectors must be a list/],
      ["unset.yaml", "connectors:\n  - { password: '${SB_NOT_SET_ANYWHERE}' }\n", /SB_NOT_SET_ANYWHERE.*not set/],
      // A name of Object.prototype is not a variable (it substituted "function Object() { … }").
      ["proto.yaml", "connectors:\n  - { password: '${constructor}' }\n", /constructor.*not set/],
      ["proto2.yaml", "connectors:\n  - { password: '${toString}' }\n", /toString.*not set/],
    ];
    for (const [name, text, problem] of cases) {
      const where = await file(name, text);
      const error = await readCarriersFile(where, {}).then(
        () => null,
        (e: Error) => e,
      );
      expect(error?.message, name).toMatch(problem);
      expect(error?.message, name).toContain(where);
    }
    await expect(readCarriersFile(path.join(dir, "absent.yaml"))).rejects.toThrow(/Cannot read the carriers file/);
  });
});

describeEachEngine("the carriers file applied", (engine: Engine) => {
  it("is applied by several processes starting at once without a conflict", async () => {
    // Every api and worker applies the file at its start; on a fresh database the first ones
    // raced (each saw no connector and inserted it: duplicate key, the process exited 1).
    const db = await createTestDatabase(engine);
    const deps = { store: db.store, clock: { now: () => new Date() } };
    try {
      const where = await file(
        `race-${engine}.json`,
        JSON.stringify({
          connectors: [
            { name: "one", type: "smpp", host: "127.0.0.1", port: 2775, system_id: "a", password: "b" },
            { name: "two", type: "smpp", host: "127.0.0.1", port: 2776, system_id: "a", password: "b" },
          ],
          routes: [{ route: "*", prefix: "", connectors: [{ name: "one", weight: 1 }] }],
        }),
      );
      const results = await Promise.allSettled(Array.from({ length: 8 }, () => applyCarriersFile(deps, where, {})));
      expect(results.filter((r) => r.status === "rejected")).toEqual([]);
      expect((await listCarriers(db.store.db)).map((c) => c.name)).toEqual(["one", "two"]);
      expect((await listRoutes(db.store.db)).map((r) => [r.route, r.prefix])).toEqual([["*", ""]]);
    } finally {
      await db.drop();
    }
  });

  it("adds and replaces connectors by name, replaces routes when it has them, and writes nothing when any part is wrong", async () => {
    const db = await createTestDatabase(engine);
    const deps = { store: db.store, clock: { now: () => new Date() } };
    try {
      const first = await file(
        `first-${engine}.yaml`,
        [
          "connectors:",
          "  - { name: one, type: smpp, host: 127.0.0.1, port: 2775, system_id: a, password: b }",
          "  - { name: two, type: smpp, host: 127.0.0.1, port: 2776, system_id: a, password: b, connections: 2 }",
          "routes:",
          "  - { route: T, prefix: '', connectors: [{ name: one, weight: 2 }, { name: two }] }",
          "  - { route: I, prefix: '1', connectors: [{ name: two }] }",
        ].join("\n"),
      );
      expect(await applyCarriersFile(deps, first, {})).toEqual({ connectors: 2, routes: 2, cost_cards: 0 });
      expect((await listCarriers(db.store.db)).map((c) => [c.name, c.source])).toEqual([
        ["one", "file"],
        ["two", "file"],
      ]);
      const second = await file(
        `second-${engine}.json`,
        JSON.stringify({
          connectors: [{ name: "two", type: "smpp", host: "127.0.0.1", port: 2999, system_id: "a", password: "b" }],
        }),
      );
      expect(await applyCarriersFile(deps, second, {})).toEqual({ connectors: 1, routes: null, cost_cards: 0 });
      const two = (await listCarriers(db.store.db)).find((c) => c.name === "two")!;
      expect(two.definition).toMatchObject({ port: 2999 });
      expect((await listRoutes(db.store.db)).length).toBe(2);

      // A bad route: nothing of the file is written.
      const bad = await file(
        `bad-${engine}.json`,
        JSON.stringify({
          connectors: [{ name: "three", type: "smpp", host: "h", port: 1, system_id: "a", password: "b" }],
          routes: [{ route: "T", prefix: "", connectors: [{ name: "ghost" }] }],
        }),
      );
      await expect(applyCarriersFile(deps, bad, {})).rejects.toThrow(/no connector named ghost/);
      const badConnector = await file(
        `bad2-${engine}.json`,
        JSON.stringify({
          connectors: [{ name: "four", type: "smpp", host: "h", port: 1, system_id: "a", password: "123456789" }],
        }),
      );
      await expect(applyCarriersFile(deps, badConnector, {})).rejects.toThrow(/connectors\[0\].*password/);
      expect((await listCarriers(db.store.db)).map((c) => c.name)).toEqual(["one", "two"]);
      expect((await listRoutes(db.store.db)).map((r) => `${r.route}/${r.prefix}`)).toEqual(["I/1", "T/"]);

      // A gateway started with a bad file does not start, and says why.
      await expect(
        startGateway({
          config: testConfig(db, { SWITCHBOARD_CARRIERS_FILE: bad }),
          roles: ["api", "worker"],
          store: db.store,
        }),
      ).rejects.toThrow(bad);
    } finally {
      await db.drop();
    }
  });
});

const perl = perlSmscAvailable();
if (!perl.available && process.env.SWITCHBOARD_REQUIRE_PERL_SMSC === "1") {
  throw new Error(`SWITCHBOARD_REQUIRE_PERL_SMSC=1 but the Perl SMSC cannot run: ${perl.reason}`);
}
if (perl.available) {
  describeEachEngine("a gateway configured by file, sending to Net::SMPP", perlSuite);
} else {
  console.warn(`Perl SMSC unavailable (${perl.reason}): the gateway-to-Net::SMPP suites skipped.`);
  describe.skip(`a gateway configured by file, sending to Net::SMPP (skipped: ${perl.reason})`, () =>
    perlSuite("sqlite"));
}

function perlSuite(engine: Engine): void {
  let smsc: PerlSmsc;
  let t: TestGateway;

  beforeAll(async () => {
    smsc = await PerlSmsc.start({ receiptDelayMs: 20, failDestination: "666$" });
    process.env.SB_TEST_SMSC_PASSWORD = "secret";
    const carriers = await file(
      `perl-${engine}.yaml`,
      [
        "connectors:",
        "  - name: perl-smsc",
        "    type: smpp",
        "    host: 127.0.0.1",
        `    port: ${smsc.port}`,
        "    system_id: switchboard",
        "    password: ${SB_TEST_SMSC_PASSWORD}",
        "    connections: 2",
        "    window: 20",
        "    enquire_link_seconds: 5",
        "routes:",
        "  - { route: T, prefix: '91', connectors: [{ name: perl-smsc }] }",
      ].join("\n"),
    );
    t = await startTestGateway(engine, { env: { SWITCHBOARD_CARRIERS_FILE: carriers } });
  });
  afterAll(async () => {
    await t?.gateway.stop();
    await t?.db.drop();
    await smsc?.stop();
  });

  it("delivers single and long SMS through it, fails what it reports UNDELIV, and shows the file's configuration", async () => {
    const account = await buildAccount(t, { credits: { sms: 50 } });
    const fields = { sender_id: "SWBRD", dlt_entity_id: "1101234567890123456", dlt_template_id: "1107161234567890123" };
    const sent = [
      await sendSms(t, account, { ...fields, recipient: "9876543210", message: "Your OTP is 4321" }),
      await sendSms(t, account, {
        ...fields,
        recipient: "9876543211",
        message: "Namaste 🙏 आपका OTP 4321 है",
        unicode: true,
      }),
      await sendSms(t, account, { ...fields, recipient: "9876543212", message: "Long text. ".repeat(40).trim() }),
      await sendSms(t, account, { ...fields, recipient: "9876543666", message: "Your OTP is 9999" }),
    ];
    for (const answer of sent) expect(answer.status, answer.text).toBe(200);
    const [otp, unicode, long, undeliverable] = sent.map((answer) => answer.body.data.message_id as string);
    expect((await waitForStatus(t, account, otp!)).status).toBe("delivered");
    expect((await waitForStatus(t, account, unicode!)).status).toBe("delivered");
    expect((await waitForStatus(t, account, long!)).status).toBe("delivered");
    const failed = await waitForStatus(t, account, undeliverable!);
    expect(failed.status).toBe("failed");

    const submits = smsc.received("submit_sm");
    // 1 + 1 + 3 parts (439 GSM-7 characters) + 1.
    expect(submits.length).toBe(6);
    expect(submits.filter((s) => s.destination === "919876543212").length).toBe(3);
    expect(submits.find((s) => s.destination === "919876543211")?.data_coding).toBe(8);
    const credits = sent.reduce((sum, answer) => sum + answer.body.data.credits, 0);
    expect(await balanceOf(t, account)).toBe(50 - credits);

    const operator = await buildAccount(t, { role: "operator" });
    const listed = await call(t, "GET", "/admin/api/carriers", {
      headers: { authorization: `Bearer ${operator.apiKey}` },
    });
    expect(listed.body.data).toMatchObject([
      { name: "perl-smsc", type: "smpp", source: "file", definition: { password: "********", connections: 2 } },
    ]);
    const routes = await call(t, "GET", "/admin/api/routes", {
      headers: { authorization: `Bearer ${operator.apiKey}` },
    });
    expect(routes.body.data).toMatchObject([
      { route: "T", prefix: "91", connectors: [{ name: "perl-smsc", weight: 1 }] },
    ]);
  });
}
