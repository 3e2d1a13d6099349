// The SMPP server's surface of the long fuzz run (issue 36): the clients of
// test/fuzz/smpp-server.test.ts, on the project's own PDU codec (dist/carriers/smpp) and raw
// sockets, against the gateway process bench/fuzz/run.mjs started. `runs` streams of valid,
// mutated and random PDUs cut into partial frames, on the bound session of an account made for
// it or on a fresh unbound connection; then rounds of floods that never read (enquire_link,
// unknown commands, submits, a frame that never ends), bound or not, each of which the server
// must close. Seeded (FUZZ_SEED replays a run). Figures: PDUs sent, answers, generic_nack,
// connections the server closed as it should (a broken stream, an unbind, a flood) and ones it
// closed before a well-framed stream was answered (errors), the slowest stream, the server's
// heap after a forced GC (gc-on-signal.cjs) before and after, and the account's credits charged
// against the messages stored.
import net from "node:net";
import BetterSqlite3 from "better-sqlite3";
import { encodePdu, PduReader } from "../../dist/base/smpp/index.js";
import { cli, waitFor } from "../lib.mjs";

const RESPONSE = 0x80000000;
const BIND_TRANSMITTER = 0x02;
const SUBMIT_SM = 0x04;
const UNBIND = 0x06;
const ENQUIRE_LINK = 0x15;
const MAX_PDU = 65_536;
const USERNAME = "fuzzsmpp";
const SMPP_PASSWORD = "fz123456";
const ANSWER_MS = 1_000;
/** A stream's answers later than this are a stall; later than this again, the stream failed. */
const GIVE_UP_MS = 10_000;

/** mulberry32: a small seeded generator, so that FUZZ_SEED replays a run. */
function seeded(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (max) => Math.floor(next() * max);
  return {
    next,
    int,
    pick: (list) => list[int(list.length)],
    bytes: (n) => Buffer.from(Array.from({ length: n }, () => int(256))),
  };
}

const cstrings = (...values) => Buffer.concat(values.map((v) => Buffer.from(`${v}\0`, "latin1")));
const tlv = (tag, value) => {
  const head = Buffer.alloc(4);
  head.writeUInt16BE(tag, 0);
  head.writeUInt16BE(value.length, 2);
  return Buffer.concat([head, value]);
};
function submitBody(text, { dataCoding = 0, esmClass = 0 } = {}) {
  return Buffer.concat([
    cstrings(""),
    Buffer.from([1, 1]),
    cstrings("SWBRD"),
    Buffer.from([1, 1]),
    cstrings("9876543210"),
    Buffer.from([esmClass, 0, 0]),
    cstrings("", ""),
    Buffer.from([0, 0, dataCoding, 0, text.length]),
    Buffer.from(text, "latin1"),
  ]);
}

/** A request an ESME sends, valid as it is (a bind names an account that does not exist). */
function validRequest(r) {
  const text = Array.from({ length: r.int(160) }, () => String.fromCharCode(32 + r.int(95))).join("");
  switch (r.int(7)) {
    case 0:
      return encodePdu(ENQUIRE_LINK, r.int(2 ** 31));
    case 1:
      return encodePdu(
        0x09,
        r.int(2 ** 31),
        0,
        Buffer.concat([cstrings("fuzz-nobody", "wrongpw", ""), Buffer.from([0x34, 0, 0, 0])]),
      );
    case 2:
      return encodePdu(SUBMIT_SM, r.int(2 ** 31), 0, submitBody(text));
    case 3: {
      const total = 1 + r.int(4);
      const body = Buffer.concat([
        submitBody("", { dataCoding: 1 }),
        tlv(0x020c, Buffer.from([r.int(256), r.int(256)])),
        tlv(0x020e, Buffer.from([total])),
        tlv(0x020f, Buffer.from([1 + r.int(total)])),
        tlv(0x0424, Buffer.from(text, "latin1")),
      ]);
      return encodePdu(SUBMIT_SM, r.int(2 ** 31), 0, body);
    }
    case 4:
      return encodePdu(
        SUBMIT_SM,
        r.int(2 ** 31),
        0,
        submitBody(`\x05\x00\x03${String.fromCharCode(r.int(256))}\x02\x01${text}`, { esmClass: 0x40 }),
      );
    case 5:
      return encodePdu(
        0x103,
        r.int(2 ** 31),
        0,
        Buffer.concat([
          cstrings(""),
          Buffer.from([1, 1]),
          cstrings("SWBRD"),
          Buffer.from([1, 1]),
          cstrings("9876543210"),
          Buffer.from([0, 0, 1]),
          tlv(0x0424, Buffer.from(text, "latin1")),
        ]),
      );
    default:
      return encodePdu(
        0x21,
        r.int(2 ** 31),
        0,
        Buffer.concat([
          cstrings(""),
          Buffer.from([1, 1]),
          cstrings("SWBRD"),
          Buffer.from([2, 1, 1, 1]),
          cstrings("9876543210"),
          Buffer.from([1, 1, 1]),
          cstrings("9876543211"),
          Buffer.from([0, 0, 0]),
          cstrings("", ""),
          Buffer.from([0, 0, 0, 0, text.length]),
          Buffer.from(text, "latin1"),
        ]),
      );
  }
}

const COMMANDS = [
  0x04, 0x103, 0x21, 0x02, 0x09, 0x01, 0x15, 0x05, 0x03, 0x07, 0x08, 0x0b, 0x102, 0x80000000, 0x80000005, 0x80000015,
  0x12345678, 0xffffffff,
];

/** One PDU of a stream: valid, valid then mutated (a byte flipped, cut, grown, its length lied about), or random. */
function streamPdu(r) {
  const kind = r.int(3);
  if (kind === 2) return encodePdu(r.pick(COMMANDS), r.int(2 ** 31), 0, r.bytes(r.int(300)));
  let pdu = Buffer.from(validRequest(r));
  if (kind === 1) {
    for (let m = 1 + r.int(3); m > 0; m--) {
      const mutation = r.int(4);
      if (mutation === 0 && pdu.length > 0) pdu[r.int(pdu.length)] = r.int(256);
      else if (mutation === 1) pdu = pdu.subarray(0, r.int(pdu.length + 1));
      else if (mutation === 2) pdu = Buffer.concat([pdu, r.bytes(1 + r.int(40))]);
      else if (pdu.length >= 4) pdu.writeUInt32BE(r.pick([r.int(16), 16 + r.int(385), MAX_PDU + 1]), 0);
    }
  }
  return pdu;
}

/** How the server reads a stream (carriers/smpp/pdu.ts's PduReader): its whole PDUs' commands and how it ends. */
function framingOf(stream) {
  const commands = [];
  let at = 0;
  while (at < stream.length) {
    if (stream.length - at < 16) return { commands, end: "partial" };
    const length = stream.readUInt32BE(at);
    if (length < 16 || length > MAX_PDU) return { commands, end: "broken" };
    if (stream.length - at < length) return { commands, end: "partial" };
    commands.push(stream.readUInt32BE(at + 4));
    at += length;
  }
  return { commands, end: "whole" };
}

class Client {
  constructor(port, localAddress) {
    this.socket = net.connect({ port, host: "127.0.0.1", ...(localAddress ? { localAddress } : {}) });
    this.reader = new PduReader();
    this.received = [];
    this.closed = false;
    this.wake = undefined;
    this.socket.on("data", (chunk) => {
      for (const pdu of this.reader.push(chunk)) {
        // The server's enquire_link is answered; everything else waits to be looked at.
        if (pdu.commandId === ENQUIRE_LINK) this.socket.write(encodePdu((RESPONSE | ENQUIRE_LINK) >>> 0, pdu.sequence));
        else this.received.push(pdu);
      }
      this.wake?.();
    });
    this.socket.on("error", () => undefined);
    this.socket.on("close", () => {
      this.closed = true;
      this.wake?.();
    });
  }

  connected() {
    return new Promise((resolve, reject) => {
      this.socket.once("connect", resolve);
      this.socket.once("error", reject);
    });
  }

  /** The next PDU, or undefined when the connection closed or nothing came by `deadline`. */
  async next(deadline) {
    while (this.received.length === 0) {
      if (this.closed || Date.now() > deadline) return undefined;
      await new Promise((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, 50);
      });
    }
    return this.received.shift();
  }

  async bind(systemId, password) {
    this.socket.write(
      encodePdu(
        BIND_TRANSMITTER,
        1,
        0,
        Buffer.concat([cstrings(systemId, password, ""), Buffer.from([0x34, 0, 0, 0])]),
      ),
    );
    const answer = await this.next(Date.now() + GIVE_UP_MS);
    if (answer?.status !== 0) throw new Error(`the fuzz account's bind was refused: ${answer?.status}`);
  }

  async untilClosed(deadline) {
    while (!this.closed && Date.now() <= deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    return this.closed;
  }

  destroy() {
    this.socket.destroy();
  }
}

/**
 * The server's heap after a full collection, from the line gc-on-signal.cjs prints on SIGUSR2;
 * `forcedGc` tells run.mjs's watchdog that the delay it causes is the measurement's.
 */
async function heapAfterGc(server, forcedGc) {
  const count = () =>
    server
      .output()
      .split("\n")
      .filter((line) => line.startsWith("fuzz-gc ")).length;
  const before = count();
  forcedGc?.started();
  server.child.kill("SIGUSR2");
  await waitFor(() => count() > before, { timeoutMs: 10_000, intervalMs: 20 }).finally(() => forcedGc?.ended());
  const lines = server
    .output()
    .split("\n")
    .filter((line) => line.startsWith("fuzz-gc "));
  return Number(lines.at(-1).split(" ")[1]);
}

/** Milli-credits the account was charged (debits less refunds) and its messages cost. */
function chargedAndStored(databaseUrl) {
  const db = new BetterSqlite3(databaseUrl.slice("sqlite:".length), { readonly: true });
  try {
    const { id } = db.prepare("select id from accounts where username = ?").get(USERNAME);
    const charged = db
      .prepare(
        "select coalesce(sum(amount), 0) as sum from ledger_entries where account_id = ? and kind in ('debit', 'refund')",
      )
      .get(id).sum;
    const stored = db
      .prepare("select coalesce(sum(credits), 0) as sum, count(*) as n from messages where account_id = ?")
      .get(id);
    return { charged: -charged, stored: stored.sum, messages: stored.n };
  } finally {
    db.close();
  }
}

/**
 * Runs the surface; `server` is startServer's, run with gc-on-signal.cjs; `env` reaches its
 * database for the CLI; `forcedGc` ({ started, ended }) is told around each forced collection. Resolves with the figures and `failed`: the server gone, a stream's
 * connection closed before its answers, a flood not closed, the heap grown by 10 MB or more,
 * or a charge that is not what was stored.
 */
export async function fuzzSmpp({ server, smppPort, databaseUrl, env, runs, forcedGc }) {
  const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
  const r = seeded(seed);
  cli(
    env,
    "accounts",
    "create",
    "--username",
    USERNAME,
    "--password",
    "fuzz-smpp-password",
    "--credits",
    "sms=1000000",
    "--sender",
    "SWBRD",
  );
  cli(
    env,
    "accounts",
    "set",
    "--username",
    USERNAME,
    "--smpp-password",
    SMPP_PASSWORD,
    "--smpp-max-binds",
    "0",
    "--smpp-submits-per-second",
    "0",
    "--dlt-scrubbing",
    "off",
  );
  const figures = {
    seed,
    streams: 0,
    sent: 0,
    answers: 0,
    genericNacks: 0,
    closedAsExpected: 0,
    closedEarly: 0,
    floods: 0,
    floodsLeftOpen: 0,
    slowestMs: 0,
    slowStreams: 0,
  };
  let session;
  const newBound = async () => {
    const client = new Client(smppPort);
    await client.connected();
    await client.bind(USERNAME, SMPP_PASSWORD);
    return client;
  };
  /** The session the streams share; bound again when a stream ended it or the server unbound it. */
  const bound = async () => {
    if (session && !session.closed) {
      session.socket.write(encodePdu(ENQUIRE_LINK, 0x7fffffff));
      const answer = await session.next(Date.now() + GIVE_UP_MS);
      if (answer?.commandId === (RESPONSE | ENQUIRE_LINK) >>> 0 && answer.sequence === 0x7fffffff) return session;
      session.destroy();
    }
    session = await newBound();
    return session;
  };
  let addresses = 0;
  const unbound = async () => {
    const client = new Client(smppPort, `127.0.0.${2 + (addresses++ % 250)}`);
    await client.connected();
    return client;
  };
  // A first submit, so the heap is read with the code paths warm.
  const warm = await bound();
  warm.socket.write(encodePdu(SUBMIT_SM, 2, 0, submitBody("warm-up")));
  await warm.next(Date.now() + GIVE_UP_MS);
  const heapBefore = await heapAfterGc(server, forcedGc);

  for (let run = 0; run < runs; run++) {
    const pdus = Array.from({ length: 1 + r.int(8) }, () => streamPdu(r));
    const stream = Buffer.concat(pdus);
    const framing = framingOf(stream);
    const onBound = r.int(2) === 0;
    const client = onBound ? await bound() : await unbound();
    const cuts = [...new Set(Array.from({ length: r.int(7) }, () => r.int(stream.length + 1)))].sort((a, b) => a - b);
    let from = 0;
    for (const point of [...cuts, stream.length]) {
      if (point > from) client.socket.write(stream.subarray(from, point));
      from = point;
      await new Promise((resolve) => setImmediate(resolve));
    }
    figures.streams++;
    figures.sent += pdus.length;
    const started = Date.now();
    const deadline = started + GIVE_UP_MS;
    if (framing.commands.includes(UNBIND) || framing.end === "broken") {
      for (let pdu = await client.next(deadline); pdu; pdu = await client.next(deadline)) {
        figures.answers++;
        if (pdu.commandId === RESPONSE) figures.genericNacks++;
      }
      if (await client.untilClosed(deadline)) figures.closedAsExpected++;
      else figures.closedEarly++;
      client.destroy();
    } else if (framing.end === "whole") {
      let requests = framing.commands.filter((command) => command < RESPONSE).length;
      while (requests > 0) {
        const pdu = await client.next(deadline);
        if (!pdu) break;
        figures.answers++;
        if (pdu.commandId === RESPONSE) figures.genericNacks++;
        if (pdu.commandId >= RESPONSE) requests--;
      }
      if (requests > 0) {
        figures.closedEarly++;
        client.destroy();
      } else if (!onBound) client.destroy();
    } else {
      client.destroy();
    }
    const tookMs = Date.now() - started;
    figures.slowestMs = Math.max(figures.slowestMs, tookMs);
    if (tookMs > ANSWER_MS) figures.slowStreams++;
  }
  session?.destroy();

  const kinds = ["enquire_link", "unknown command", "submits", "unfinished frame"];
  for (let round = 0; round < Math.min(10, Math.max(3, Math.round(runs / 1000))); round++) {
    const floods = await Promise.all(
      Array.from({ length: 1 + r.int(6) }, async () => {
        const kind = r.pick(kinds);
        const client = r.int(2) === 0 ? await newBound() : await unbound();
        client.socket.pause();
        if (kind === "submits") {
          client.socket.write(
            Buffer.concat(Array.from({ length: 300 }, (_, i) => encodePdu(SUBMIT_SM, i + 2, 0, submitBody("f")))),
          );
        }
        const header = Buffer.from([0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04]);
        const junk = Buffer.concat(
          Array.from({ length: 4_096 }, (_, i) =>
            encodePdu(kind === "enquire_link" ? ENQUIRE_LINK : 0x12345678, i + 1),
          ),
        );
        let trickled = 0;
        const writer = setInterval(() => {
          if (client.closed) clearInterval(writer);
          else if (kind === "enquire_link" || kind === "unknown command") {
            if (client.socket.writableLength < 1024 * 1024) client.socket.write(junk);
          } else {
            client.socket.write(
              trickled < header.length ? header.subarray(trickled, trickled + 1) : Buffer.from([trickled & 0xff]),
            );
            trickled++;
          }
        }, 10);
        return client;
      }),
    );
    figures.floods += floods.length;
    const closed = await Promise.all(floods.map((client) => client.untilClosed(Date.now() + 30_000)));
    figures.floodsLeftOpen += closed.filter((c) => !c).length;
    for (const client of floods) client.destroy();
  }

  const alive = server.child.exitCode === null;
  const heapAfter = alive ? await heapAfterGc(server, forcedGc) : Number.NaN;
  const charge = chargedAndStored(databaseUrl);
  const failed =
    !alive ||
    figures.closedEarly > 0 ||
    figures.floodsLeftOpen > 0 ||
    !(heapAfter - heapBefore < 10 * 1024 * 1024) ||
    charge.charged !== charge.stored;
  return { ...figures, alive, heapBefore, heapAfter, ...charge, failed };
}
