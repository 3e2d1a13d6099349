// The SMPP server (issue 21) under one client: 4 transceiver binds of one account, each keeping
// --window submit_sm outstanding with registered_delivery 1, for --seconds, into a real gateway
// process (`switchboard start`) on a fresh database. Its only SMS route goes, by
// SWITCHBOARD_CARRIERS_FILE, to the `smpp` connector `bench-smsc`, bound to bench/smsc.mjs in its
// own process (a fake carrier that answers every submit_sm at once and sends each part's DELIVRD
// receipt after --receipt-delay-ms). The client is written on the project's own PDU codec
// (dist/base/smpp: encodePdu, PduReader) on raw sockets, so the driver spends little of the
// two cores the gateway needs. It answers every deliver_sm ESME_ROK and, after the load, waits
// until a receipt came for every accepted submit; it checks that each accepted message id got
// exactly one receipt naming it, the SMSC saw one submit_sm per message, and the ledger charged
// exactly the messages accepted. CPU per message is the gateway process's utime + stime
// (/proc/PID/stat) over load and drain, divided by the messages accepted.
// Usage: npm run build && node bench/smpp-server.mjs [--seconds 20] [--binds 4] [--window 50]
//        [--receipt-delay-ms 200] [--database postgres://…]
// BENCH_SERVER_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") goes to the gateway's node.
import net from "node:net";
import { parseArgs } from "node:util";
import { encodePdu, PduReader } from "../dist/base/smpp/index.js";
import { cli, cpuSeconds, machine, postgresCpuSeconds, startGatewayOnSmsc, waitFor } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "20" },
    database: { type: "string" },
    port: { type: "string", default: "18091" },
    "smpp-port": { type: "string", default: "12775" },
    binds: { type: "string", default: "4" },
    window: { type: "string", default: "50" },
    "receipt-delay-ms": { type: "string", default: "200" },
    text: { type: "string", default: "Your OTP is 482913. Do not share it with anyone." },
  },
});
const seconds = Number(values.seconds);
const binds = Number(values.binds);
const window = Number(values.window);
const base = `http://127.0.0.1:${values.port}`;
const SMPP_PASSWORD = "bench123";

const BIND_TRANSCEIVER = 0x09;
const SUBMIT_SM = 0x04;
const DELIVER_SM = 0x05;
const UNBIND = 0x06;
const ENQUIRE_LINK = 0x15;
const RESPONSE = 0x80000000;

const { server, smsc, db, env, stop } = await startGatewayOnSmsc({
  port: values.port,
  database: values.database,
  schemaPrefix: "bench_smpp_server",
  connections: 4,
  window: 50,
  receiptDelayMs: values["receipt-delay-ms"],
  env: { SMPP_SERVER_PORT: values["smpp-port"], SMPP_SERVER_WINDOW: String(window) },
});
cli(
  env,
  "accounts",
  "set",
  "--username",
  "demo",
  "--smpp-password",
  SMPP_PASSWORD,
  "--smpp-max-binds",
  String(binds),
  "--smpp-submits-per-second",
  "0",
);

const submitBody = (() => {
  const cstr = (s) => Buffer.from(`${s}\0`, "latin1");
  const text = Buffer.from(values.text, "latin1");
  return Buffer.concat([
    cstr(""), // service_type: the account's default route
    Buffer.from([5, 0]),
    cstr("SWBRD"),
    Buffer.from([1, 1]),
    cstr("9876543210"),
    Buffer.from([0, 0, 0]), // esm_class, protocol_id, priority_flag
    cstr(""),
    cstr(""),
    Buffer.from([1, 0, 0, 0, text.length]), // registered_delivery 1, replace, data_coding 0, default msg, length
    text,
  ]);
})();

/** Ids answered ESME_ROK; receipts by the id they name. */
const accepted = new Set();
const receipts = new Map();
let refused = 0;
const refusedStatuses = new Map();
let receiptsBeforeAnswer = 0;
/** submit_sm to submit_sm_resp, ms, of every answered submit. */
const latencies = [];
let loading = true;

class Esme {
  constructor(socket) {
    this.socket = socket;
    this.reader = new PduReader();
    this.sequence = 1;
    this.outstanding = 0;
    this.waiters = new Map();
    this.sentAt = new Map();
    socket.setNoDelay(true);
    socket.on("data", (chunk) => this.read(chunk));
    socket.on("error", (error) => console.error(`bind error: ${error.message}`));
  }

  read(chunk) {
    const out = [];
    for (const pdu of this.reader.push(chunk)) {
      if (pdu.commandId === (RESPONSE | SUBMIT_SM) >>> 0) {
        this.outstanding--;
        latencies.push(performance.now() - this.sentAt.get(pdu.sequence));
        this.sentAt.delete(pdu.sequence);
        if (pdu.status === 0) accepted.add(pdu.body.toString("latin1", 0, pdu.body.length - 1));
        else {
          refused++;
          refusedStatuses.set(pdu.status, (refusedStatuses.get(pdu.status) ?? 0) + 1);
        }
      } else if (pdu.commandId === DELIVER_SM) {
        const text = receiptText(pdu.body);
        const id = /^id:(\S+)/.exec(text)?.[1] ?? "";
        if (!accepted.has(id)) receiptsBeforeAnswer++;
        receipts.set(id, (receipts.get(id) ?? 0) + 1);
        out.push(encodePdu((RESPONSE | DELIVER_SM) >>> 0, pdu.sequence, 0, Buffer.from([0])));
      } else if (pdu.commandId === ENQUIRE_LINK) {
        out.push(encodePdu((RESPONSE | ENQUIRE_LINK) >>> 0, pdu.sequence));
      } else if (pdu.commandId === UNBIND) {
        out.push(encodePdu((RESPONSE | UNBIND) >>> 0, pdu.sequence));
      } else {
        const waiter = this.waiters.get(pdu.sequence);
        this.waiters.delete(pdu.sequence);
        waiter?.(pdu);
      }
    }
    this.fill(out);
  }

  /** Tops the window up to `window` submits outstanding, writing the PDUs in one go. */
  fill(out = []) {
    while (loading && this.outstanding < window) {
      this.outstanding++;
      this.sequence++;
      this.sentAt.set(this.sequence, performance.now());
      out.push(encodePdu(SUBMIT_SM, this.sequence, 0, submitBody));
    }
    if (out.length > 0) this.socket.write(out.length === 1 ? out[0] : Buffer.concat(out));
  }

  request(commandId, body) {
    this.sequence++;
    return new Promise((resolve) => {
      this.waiters.set(this.sequence, resolve);
      this.socket.write(encodePdu(commandId, this.sequence, 0, body));
    });
  }
}

/** The short_message of a deliver_sm body: skips its ten fields before it. */
function receiptText(body) {
  let offset = 0;
  const skipCString = () => {
    offset = body.indexOf(0, offset) + 1;
  };
  skipCString(); // service_type
  offset += 2;
  skipCString(); // source_addr
  offset += 2;
  skipCString(); // destination_addr
  offset += 3; // esm_class, protocol_id, priority_flag
  skipCString(); // schedule_delivery_time
  skipCString(); // validity_period
  offset += 4; // registered_delivery, replace_if_present, data_coding, sm_default_msg_id
  const length = body[offset];
  return body.toString("latin1", offset + 1, offset + 1 + length);
}

const esmes = [];
for (let i = 0; i < binds; i++) {
  const socket = net.connect(Number(values["smpp-port"]), "127.0.0.1");
  await new Promise((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  const esme = new Esme(socket);
  const answer = await esme.request(
    BIND_TRANSCEIVER,
    Buffer.concat([Buffer.from(`demo\0${SMPP_PASSWORD}\0\0`, "latin1"), Buffer.from([0x34, 0, 0, 0])]),
  );
  if (answer.status !== 0) throw new Error(`bind ${i + 1} refused: command_status ${answer.status}`);
  esmes.push(esme);
}

const pids = { gateway: server.child.pid, smsc: smsc.child.pid, driver: process.pid };
const cpuBefore = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSeconds(pid)]));
const postgresBefore = postgresCpuSeconds();
const started = Date.now();
let previous = { accepted: 0, receipts: 0, at: started };
const receiptCount = () => [...receipts.values()].reduce((a, b) => a + b, 0);
console.log("   t  submit_sm accepted/s  receipts/s  receipts outstanding");
const sampler = setInterval(() => {
  const now = { accepted: accepted.size, receipts: receiptCount(), at: Date.now() };
  const rate = (key) => Math.round(((now[key] - previous[key]) * 1000) / (now.at - previous.at));
  console.log(
    `${String(Math.round((now.at - started) / 1000)).padStart(4)}  ${String(rate("accepted")).padStart(20)}  ${String(rate("receipts")).padStart(10)}  ${String(now.accepted - now.receipts).padStart(20)}`,
  );
  previous = now;
}, 1000);
for (const esme of esmes) esme.fill();
await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
loading = false;
await waitFor(() => esmes.every((esme) => esme.outstanding === 0), { timeoutMs: 30_000, intervalMs: 20 });
const loadEnded = Date.now();
const acceptedDuringLoad = accepted.size;
let lastReceipt = Date.now();
for (let seen = -1, quietSince = Date.now(); ; ) {
  const count = receiptCount();
  if (count > seen) [seen, quietSince, lastReceipt] = [count, Date.now(), Date.now()];
  if (count >= accepted.size) break;
  if (Date.now() - quietSince > 60_000) {
    console.error(`no receipt for 60 s: ${count} of ${accepted.size}`);
    break;
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
}
clearInterval(sampler);
const cpu = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSeconds(pid) - cpuBefore[name]]));
const postgresCpu = postgresCpuSeconds() - postgresBefore;
for (const esme of esmes) await esme.request(UNBIND);

const smscSeen = smsc.last().t;
await waitFor(() => smsc.last().t > smscSeen + 1, { timeoutMs: 5_000, intervalMs: 50 });
const balance = await (
  await fetch(`${base}/api/v2/balance`, { headers: { authorization: `Bearer ${server.demoKey}` } })
).json();
const audit = summarise(
  (await db.query({ byStatus: "select status, count(*) as n from messages group by status" })).byStatus,
);
const total = accepted.size;
const loadSeconds = (loadEnded - started) / 1000;
const endToEnd = (lastReceipt - started) / 1000;
const once = [...accepted].every((id) => receipts.get(id) === 1);
const strangers = [...receipts.keys()].filter((id) => !accepted.has(id));
console.log(
  `\nsubmit_sm accepted ${total} in ${loadSeconds.toFixed(1)} s: ${(acceptedDuringLoad / seconds).toFixed(0)}/s (${binds} binds x window ${window}); refused ${refused}${refused ? ` ${JSON.stringify(Object.fromEntries(refusedStatuses))}` : ""}`,
);
latencies.sort((a, b) => a - b);
const percentile = (p) =>
  latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))].toFixed(0);
console.log(
  `submit_sm to submit_sm_resp: p50 ${percentile(50)} ms, p99 ${percentile(99)} ms, max ${percentile(100)} ms`,
);
console.log(
  `receipts ${receiptCount()} for ${receipts.size} ids: first submit to last receipt ${endToEnd.toFixed(1)} s = ${(receiptCount() / endToEnd).toFixed(0)}/s; last receipt ${((lastReceipt - loadEnded) / 1000).toFixed(1)} s after the load; ${receiptsBeforeAnswer} came before their submit_sm_resp was read`,
);
console.log(
  `CPU seconds over load and drain: gateway ${cpu.gateway.toFixed(1)}, SMSC ${cpu.smsc.toFixed(1)}, driver ${cpu.driver.toFixed(1)}${values.database ? `, PostgreSQL server ${postgresCpu.toFixed(1)}` : ""} (of ${(2 * endToEnd).toFixed(1)} on 2 cores); gateway ${((cpu.gateway * 1e6) / total).toFixed(0)} µs per message`,
);
const expectedBalance = 10_000 + 100_000_000 - total;
const checks = {
  "a receipt for every accepted submit, exactly once": once && receiptCount() === total,
  "no receipt for an id not answered": strangers.length === 0,
  "SMSC submits == accepted": smsc.last().submits === total,
  "every message delivered": audit.delivered === total,
  "ledger exact": balance.data.balance === expectedBalance,
};
console.log(
  `messages by status: ${JSON.stringify(audit.byStatus)}; balance ${balance.data.balance}, expected ${expectedBalance}`,
);
for (const [check, ok] of Object.entries(checks)) console.log(`${ok ? "ok  " : "FAIL"} ${check}`);
console.log(
  `machine: ${machine()}; database: ${values.database ? "postgres" : "sqlite (WAL, synchronous=FULL)"}; carrier receipts after ${values["receipt-delay-ms"]} ms`,
);

await stop();
process.exit(Object.values(checks).every(Boolean) ? 0 : 1);

/** The messages by status, of the database's rows. */
function summarise(rows) {
  return {
    byStatus: Object.fromEntries(rows.map((r) => [r.status, Number(r.n)])),
    delivered: Number(rows.find((r) => r.status === "delivered")?.n ?? 0),
  };
}
