// What a connection may cost before and after it binds (issue 36), on raw sockets: a connection
// must bind within SMPP_SERVER_BIND_TIMEOUT_SECONDS whatever it sends (its own enquire_link does
// not keep it); connections not yet bound are limited per address and in all; a client that
// floods without reading is closed once its unread answers pass SMPP_SERVER_OUTPUT_MAX_BYTES,
// the server holding no more than that of them.
import { expect, it } from "vitest";
import { encodePdu } from "../../../src/base/smpp/index.js";
import { describeEnginesTogether } from "../../helpers/engines.js";
import { type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { smppAccount, smppPort } from "./client.js";
import { BIND_TRANSMITTER, ENQUIRE_LINK, RawClient } from "./raw-client.js";

const BIND_TIMEOUT_SECONDS = 3;
const UNBOUND_PER_ADDRESS = 3;
const UNBOUND_MAX = 5;
const OUTPUT_MAX_BYTES = 65_536;

async function connect(t: TestGateway, localAddress = "127.0.0.1"): Promise<RawClient> {
  const raw = new RawClient(smppPort(t), { localAddress });
  await raw.connected();
  return raw;
}

/** The connection is open and served: its enquire_link is answered. */
async function answers(raw: RawClient): Promise<boolean> {
  raw.send(encodePdu(ENQUIRE_LINK, 99));
  const answer = await raw.next(5_000);
  return answer.commandId === 0x80000015 && answer.sequence === 99;
}

// The engines' suites run at the same time (the bind timeout is waited out), each on its own
// gateway and raw sockets.
describeEnginesTogether("SMPP server: connections before and after the bind", (engine) => {
  const gateway = useTestGateway(engine, {
    env: {
      SMPP_SERVER_PORT: "auto",
      SMPP_SERVER_BIND_TIMEOUT_SECONDS: String(BIND_TIMEOUT_SECONDS),
      SMPP_SERVER_UNBOUND_PER_ADDRESS: String(UNBOUND_PER_ADDRESS),
      SMPP_SERVER_UNBOUND_MAX: String(UNBOUND_MAX),
      SMPP_SERVER_OUTPUT_MAX_BYTES: String(OUTPUT_MAX_BYTES),
    },
  });

  it("closes a connection that sends enquire_link but never binds at the bind timeout, and one flooding without reading", async () => {
    const t = gateway();
    const account = await smppAccount(t);
    const started = Date.now();
    const chatty = await connect(t);
    const flooding = await connect(t);
    const boundClient = await connect(t);
    await boundClient.bind(account, BIND_TRANSMITTER);
    // The client: enquire_link as fast as it can, never reading, never binding.
    flooding.socket.pause();
    const flood = Buffer.concat(Array.from({ length: 4_096 }, (_, i) => encodePdu(ENQUIRE_LINK, i + 1)));
    const flooder = setInterval(() => {
      if (!flooding.closed && flooding.socket.writableLength < 1024 * 1024) flooding.send(flood);
    }, 5);
    let sequence = 1;
    const keepAlive = setInterval(() => {
      if (!chatty.closed) chatty.send(encodePdu(ENQUIRE_LINK, sequence++));
      if (!boundClient.closed) boundClient.send(encodePdu(ENQUIRE_LINK, sequence++));
    }, 200);
    try {
      await chatty.untilClosed(BIND_TIMEOUT_SECONDS * 1000 + 3_000);
      const closedAfter = Date.now() - started;
      expect(closedAfter).toBeGreaterThanOrEqual(BIND_TIMEOUT_SECONDS * 1000 - 500);
      expect((await chatty.next(100)).commandId).toBe(0x80000015);
      await flooding.untilClosed(1_000);
    } finally {
      clearInterval(flooder);
      clearInterval(keepAlive);
    }
    // A bound client is not held to the bind timeout.
    expect(boundClient.closed).toBe(false);
    boundClient.destroy();
  }, 30_000);

  it("closes new connections past the unbound ones per address and in all; bound and closed ones free their place", async () => {
    const t = gateway();
    const account = await smppAccount(t);
    const first = [await connect(t), await connect(t), await connect(t)];
    const refusedHere = await connect(t);
    await refusedHere.untilClosed(1_000);
    const second = [await connect(t, "127.0.0.2"), await connect(t, "127.0.0.2")];
    const refusedAll = await connect(t, "127.0.0.3");
    await refusedAll.untilClosed(1_000);
    for (const raw of [...first, ...second]) expect(await answers(raw)).toBe(true);
    // A bind frees its place in all and in its address's.
    await first[0]!.bind(account, BIND_TRANSMITTER);
    const third = await connect(t, "127.0.0.3");
    expect(await answers(third)).toBe(true);
    // A closed connection frees its place.
    second[0]!.destroy();
    const another = await connect(t, "127.0.0.4");
    const deadline = Date.now() + 2_000;
    // The server sees the close after the client: the first try may still find no place.
    let admitted = another;
    while (admitted.closed || !(await answers(admitted).catch(() => false))) {
      if (Date.now() > deadline) throw new Error("the closed connection's place was not freed");
      admitted = await connect(t, "127.0.0.4");
    }
    expect(await answers(first[0]!)).toBe(true);
    for (const raw of [...first, ...second, third, admitted]) raw.destroy();
  }, 30_000);

  it("closes a bound client that floods without reading once its unread answers pass the output bound", async () => {
    const t = gateway();
    const account = await smppAccount(t);
    const raw = await connect(t);
    await raw.bind(account, BIND_TRANSMITTER);
    raw.socket.pause();
    // 8 MB of enquire_link, more than the kernel's socket buffers hold of the answers.
    const count = 500_000;
    const flood = Buffer.alloc(16 * count);
    for (let i = 0; i < count; i++) encodePdu(ENQUIRE_LINK, i + 2).copy(flood, 16 * i);
    raw.send(flood);
    let buffered = 0;
    const deadline = Date.now() + 15_000;
    while (!raw.closed) {
      if (Date.now() > deadline) throw new Error("still open");
      const bind = t.gateway.smpp!.list().find((b) => b.username === account.username);
      buffered = Math.max(buffered, bind?.buffered ?? 0);
      if (!bind && !raw.closed) {
        // Gone from the server's list: closed there; the client hears it when it reads.
        raw.socket.resume();
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    // The bound and one socket read of answers beyond it (64 KB of enquire_link).
    expect(buffered).toBeLessThan(OUTPUT_MAX_BYTES + 70_000);
    expect(t.gateway.smpp!.list().filter((b) => b.username === account.username)).toEqual([]);
  }, 30_000);
});
