// What one client can hold of the HTTP port (security audit 1): HTTP_CONNECTIONS_PER_ADDRESS
// connections from one address and HTTP_CONNECTIONS_MAX from all, one more closed as it
// arrives; a request must arrive whole within HTTP_REQUEST_TIMEOUT_SECONDS and its headers
// within HTTP_HEADERS_TIMEOUT_SECONDS, then it is answered 408 and closed; a client that goes
// away mid-body is an info line without a stack, not an error, and its refusal (audit 3)
// is recorded under the address "unknown" instead of throwing.
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { until } from "../domain/webhooks/receiver.js";
import { describeEachEngine } from "../helpers/engines.js";
import { buildAccount, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { captureLogs, WARN } from "../helpers/log-capture.js";

const INFO = 30;

const PER_ADDRESS = 4;
const MAX = 6;

interface Held {
  socket: Socket;
  received: Buffer[];
  closed: Promise<number>;
}

/** A connection from `localAddress`, once connected; `closed` resolves (with the time) when the server ends it. */
function open(url: string, localAddress = "127.0.0.1"): Promise<Held> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), localAddress });
    const received: Buffer[] = [];
    const closed = new Promise<number>((done) => socket.once("close", () => done(Date.now())));
    socket.on("data", (chunk: Buffer) => received.push(chunk));
    socket.on("error", () => {});
    socket.once("connect", () => resolve({ socket, received, closed }));
    socket.once("error", reject);
  });
}

async function healthz(url: string, localAddress = "127.0.0.1"): Promise<string> {
  const held = await open(url, localAddress);
  held.socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  await held.closed;
  return Buffer.concat(held.received).toString("latin1").split("\r\n")[0] ?? "";
}

describeEachEngine("HTTP connections and slow requests", (engine) => {
  let t: TestGateway;
  const logs = captureLogs();
  beforeAll(async () => {
    t = await startTestGateway(engine, {
      logger: logs.logger,
      env: {
        HTTP_CONNECTIONS_PER_ADDRESS: String(PER_ADDRESS),
        HTTP_CONNECTIONS_MAX: String(MAX),
        HTTP_REQUEST_TIMEOUT_SECONDS: "2",
        HTTP_HEADERS_TIMEOUT_SECONDS: "1",
      },
    });
  });
  afterAll(async () => {
    await t?.gateway.stop();
    await t?.db.drop();
  });

  it("closes one connection past the per-address cap at once, and serves again once the holders close", async () => {
    const holders = await Promise.all(Array.from({ length: PER_ADDRESS }, () => open(t.url)));
    const extra = await open(t.url);
    await extra.closed;
    expect(extra.received).toEqual([]);
    // Another address is still served while 127.0.0.1 is full.
    expect(await healthz(t.url, "127.0.0.2")).toBe("HTTP/1.1 200 OK");
    for (const holder of holders) holder.socket.destroy();
    await Promise.all(holders.map((holder) => holder.closed));
    // The server sees the holders' closes a moment after they do.
    await until(async () => (await healthz(t.url)) === "HTTP/1.1 200 OK", 5_000);
    expect(logs.matching(/HTTP connections refused: more than 4 open from one address/)).toHaveLength(1);
  });

  it("closes one connection past the total cap at once, from any address", async () => {
    const holders = [
      ...(await Promise.all(Array.from({ length: PER_ADDRESS }, () => open(t.url, "127.0.0.1")))),
      ...(await Promise.all(Array.from({ length: MAX - PER_ADDRESS }, () => open(t.url, "127.0.0.2")))),
    ];
    const extra = await open(t.url, "127.0.0.3");
    await extra.closed;
    expect(extra.received).toEqual([]);
    for (const holder of holders) holder.socket.destroy();
    await Promise.all(holders.map((holder) => holder.closed));
    await until(async () => (await healthz(t.url, "127.0.0.3")) === "HTTP/1.1 200 OK", 5_000);
  });

  it("cuts a body sent a byte at a time at the request timeout, with a 408", async () => {
    const slow = await open(t.url);
    const started = Date.now();
    slow.socket.write(
      "POST /console/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{",
    );
    const trickle = setInterval(() => slow.socket.write(" "), 200);
    const closedAt = await slow.closed;
    clearInterval(trickle);
    // 2 s, looked for every 250 ms.
    expect(closedAt - started).toBeGreaterThanOrEqual(1_900);
    expect(closedAt - started).toBeLessThan(5_000);
    expect(Buffer.concat(slow.received).toString("latin1")).toMatch(/^HTTP\/1\.1 408 /);
    // The request whose client was cut off is no error with a stack.
    await until(() => logs.matching(/^request aborted: the client closed the connection/).length > 0, 5_000);
    const aborted = logs.matching(/^request aborted/)[0]!;
    expect(aborted.level).toBe(INFO);
    expect(aborted.err).toBeUndefined();
    expect(
      logs.lines.filter(
        (line) =>
          line.level >= WARN &&
          !/^(HTTP connections refused|PROMOTIONAL_HEADER is unset|DLT_CHAIN_REQUIRED is off)/.test(line.msg),
      ),
    ).toEqual([]);
  });

  it("cuts headers sent a byte at a time at the headers timeout, with a 408", async () => {
    const slow = await open(t.url);
    const started = Date.now();
    slow.socket.write("POST /console/session HTTP/1.1\r\nHost: x\r\n");
    const trickle = setInterval(() => slow.socket.write("x"), 100);
    const closedAt = await slow.closed;
    clearInterval(trickle);
    expect(closedAt - started).toBeGreaterThanOrEqual(900);
    expect(closedAt - started).toBeLessThan(4_000);
    expect(Buffer.concat(slow.received).toString("latin1")).toMatch(/^HTTP\/1\.1 408 /);
  });

  it("records the refusal of a send cut off mid-body with its address, without throwing", async () => {
    const account = await buildAccount(t);
    const sender = await open(t.url);
    sender.socket.write(
      `POST /api/v2/sms/send HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${account.apiKey}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"recipient": "98',
    );
    // The body never comes whole: the request timeout cuts the connection, and with it the address.
    await sender.closed;
    await until(
      async () =>
        (await t.db.store.db.selectFrom("refusals").select("address").where("account_id", "=", account.id).execute())
          .length > 0,
      10_000,
    );
    const rows = await t.db.store.db.selectFrom("refusals").selectAll().where("account_id", "=", account.id).execute();
    // The address was read when the connection opened (connection-limits.ts), so it outlives the socket.
    expect(rows.map((row) => row.address)).toEqual(["127.0.0.1"]);
    expect(
      logs.lines.filter(
        (line) =>
          line.level >= WARN &&
          !/^(HTTP connections refused|PROMOTIONAL_HEADER is unset|DLT_CHAIN_REQUIRED is off)/.test(line.msg),
      ),
    ).toEqual([]);
  });
});
