// A fast loopback SMSC for the SMPP benchmarks, on raw sockets (the `smpp` package's decoder
// and encoder would cost this process more CPU than the gateway it measures, on the same two
// cores). It accepts binds, answers each submit_sm at once with a hex message id, and after
// --receipt-delay-ms sends the part's delivery receipt (deliver_sm, esm_class 0x04,
// `id:… stat:DELIVRD …`), at most --deliver-window unanswered per connection. Counters go to
// stdout every second: as a line of text, or with --json as a JSON line (bench/smpp-e2e.mjs and
// bench/smpp-connector.mjs read those).
// Usage: node bench/smsc.mjs [--port 2775] [--system-id bench --password bench] [--receipt-delay-ms 100]
//        [--deliver-window 100] [--fail-rate 0] [--decimal-receipt-ids] [--receipt-tlvs] [--json]
//        [--receipts-when-asked]
// --receipts-when-asked sends a receipt only for a submit_sm whose registered_delivery asks for
// one (its low two bits set), as an SMSC does; without it every part gets one.
import net from "node:net";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "2775" },
    host: { type: "string", default: "127.0.0.1" },
    "system-id": { type: "string" },
    password: { type: "string" },
    "receipt-delay-ms": { type: "string", default: "100" },
    "deliver-window": { type: "string", default: "100" },
    "fail-rate": { type: "string", default: "0" },
    "decimal-receipt-ids": { type: "boolean", default: false },
    "receipt-tlvs": { type: "boolean", default: false },
    "receipts-when-asked": { type: "boolean", default: false },
    json: { type: "boolean", default: false },
    quiet: { type: "boolean", default: false },
  },
});
const receiptDelayMs = Number(values["receipt-delay-ms"]);
const deliverWindow = Number(values["deliver-window"]);
const failRate = Number(values["fail-rate"]);

const BIND_RECEIVER = 0x01;
const BIND_TRANSMITTER = 0x02;
const SUBMIT_SM = 0x04;
const DELIVER_SM = 0x05;
const UNBIND = 0x06;
const BIND_TRANSCEIVER = 0x09;
const ENQUIRE_LINK = 0x15;
const RESPONSE = 0x80000000;
/** `|` works on int32 in JS: a response's command id read as uint32 is this sum. */
const DELIVER_SM_RESP = DELIVER_SM + RESPONSE;
const ESME_RINVPASWD = 0x0e;
const ESME_RINVCMDID = 0x03;
const ESME_RINVBNDSTS = 0x04;

const stats = {
  connections: 0,
  binds: 0,
  refusedBinds: 0,
  submits: 0,
  receiptsSent: 0,
  receiptsAcked: 0,
  receiptsRefused: 0,
  /** Receipts due or waiting for a free slot in a connection's deliver window. */
  receiptsWaiting: 0,
  enquireLinks: 0,
};
let nextId = 0;

/** Connections that take deliver_sm (transceiver, receiver), by system_id. */
const receivers = new Map();
const receiverTurn = new Map();

/** Reads a C string at `offset`: [text, offset after its NUL]. */
function cstring(buffer, offset, end) {
  let at = offset;
  while (at < end && buffer[at] !== 0) at++;
  return [buffer.toString("latin1", offset, at), at + 1];
}

function pdu(commandId, status, sequence, body) {
  const length = 16 + (body ? body.length : 0);
  const out = Buffer.allocUnsafe(length);
  out.writeUInt32BE(length, 0);
  out.writeUInt32BE(commandId >>> 0, 4);
  out.writeUInt32BE(status, 8);
  out.writeUInt32BE(sequence, 12);
  if (body) body.copy(out, 16);
  return out;
}

function cstr(text) {
  return Buffer.from(`${text}\0`, "latin1");
}

function smppDate(at) {
  const d = new Date(at);
  const two = (n) => String(n).padStart(2, "0");
  return `${two(d.getUTCFullYear() % 100)}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}${two(d.getUTCHours())}${two(d.getUTCMinutes())}`;
}

/** The deliver_sm body of a receipt for one submitted part. */
function receiptBody(receipt) {
  const failed = receipt.failed;
  const id = values["decimal-receipt-ids"] ? BigInt(`0x${receipt.id}`).toString() : receipt.id;
  const stat = failed ? "UNDELIV" : "DELIVRD";
  const text = `id:${id} sub:001 dlvrd:${failed ? "000" : "001"} submit date:${smppDate(receipt.submittedAt)} done date:${smppDate(Date.now())} stat:${stat} err:${failed ? "001" : "000"} text:`;
  const message = Buffer.from(text, "latin1");
  const parts = [
    cstr(""), // service_type
    Buffer.from([receipt.destTon, receipt.destNpi]),
    cstr(receipt.destination), // the receipt comes from the handset ...
    Buffer.from([receipt.sourceTon, receipt.sourceNpi]),
    cstr(receipt.source), // ... to the sender
    // esm_class receipt, protocol_id, priority, schedule and validity empty, registered_delivery,
    // replace_if_present, data_coding, sm_default_msg_id, sm_length
    Buffer.from([0x04, 0, 0, 0, 0, 0, 0, 0, 0, message.length]),
    message,
  ];
  if (values["receipt-tlvs"]) {
    const idBytes = cstr(receipt.id);
    const tlv = Buffer.alloc(4 + idBytes.length + 5);
    tlv.writeUInt16BE(0x001e, 0);
    tlv.writeUInt16BE(idBytes.length, 2);
    idBytes.copy(tlv, 4);
    tlv.writeUInt16BE(0x0427, 4 + idBytes.length);
    tlv.writeUInt16BE(1, 6 + idBytes.length);
    tlv[8 + idBytes.length] = failed ? 5 : 2;
    parts.push(tlv);
  }
  return Buffer.concat(parts);
}

/** Whether a submit_sm body, read from after its destination_addr, has registered_delivery & 0x03. */
function asksReceipt(buffer, offset, end) {
  // esm_class, protocol_id, priority_flag, then schedule_delivery_time and validity_period.
  const afterSchedule = cstring(buffer, offset + 3, end)[1];
  const afterValidity = cstring(buffer, afterSchedule, end)[1];
  return afterValidity < end && (buffer[afterValidity] & 0x03) !== 0;
}

class Connection {
  constructor(socket) {
    this.socket = socket;
    this.mode = null;
    this.systemId = null;
    this.pending = Buffer.alloc(0);
    this.sequence = 0;
    /** deliver_sm sent and not yet answered, by sequence number. */
    this.unanswered = new Map();
    /** Receipts due, waiting for a slot in the deliver window. */
    this.backlog = [];
    this.out = [];
    socket.setNoDelay(true);
    socket.on("data", (chunk) => this.read(chunk));
    socket.on("error", () => {});
    socket.on("close", () => this.closed());
    stats.connections++;
  }

  get takesReceipts() {
    return this.mode === "transceiver" || this.mode === "receiver";
  }

  read(chunk) {
    let buffer = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    let offset = 0;
    const submitted = [];
    while (buffer.length - offset >= 16) {
      const length = buffer.readUInt32BE(offset);
      if (length < 16 || length > 65536) {
        this.socket.destroy();
        return;
      }
      if (buffer.length - offset < length) break;
      this.handle(buffer, offset, length, submitted);
      offset += length;
    }
    buffer = buffer.subarray(offset);
    this.pending = buffer.length > 0 ? Buffer.from(buffer) : Buffer.alloc(0);
    this.flush();
    if (submitted.length > 0) {
      // One timer for every part read in this chunk.
      setTimeout(() => route(submitted), receiptDelayMs);
    }
  }

  handle(buffer, offset, length, submitted) {
    const end = offset + length;
    const commandId = buffer.readUInt32BE(offset + 4);
    const status = buffer.readUInt32BE(offset + 8);
    const sequence = buffer.readUInt32BE(offset + 12);
    const body = offset + 16;
    switch (commandId) {
      case BIND_TRANSCEIVER:
      case BIND_TRANSMITTER:
      case BIND_RECEIVER: {
        const [systemId, next] = cstring(buffer, body, end);
        const [password] = cstring(buffer, next, end);
        const accepted =
          (values["system-id"] === undefined || values["system-id"] === systemId) &&
          (values.password === undefined || values.password === password);
        if (!accepted) {
          stats.refusedBinds++;
          this.out.push(pdu(commandId | RESPONSE, ESME_RINVPASWD, sequence));
          return;
        }
        stats.binds++;
        this.mode =
          commandId === BIND_TRANSCEIVER ? "transceiver" : commandId === BIND_TRANSMITTER ? "transmitter" : "receiver";
        this.systemId = systemId;
        if (this.takesReceipts) {
          const list = receivers.get(systemId) ?? [];
          list.push(this);
          receivers.set(systemId, list);
        }
        this.out.push(pdu(commandId | RESPONSE, 0, sequence, cstr("BENCHSMSC")));
        return;
      }
      case SUBMIT_SM: {
        if (this.mode !== "transceiver" && this.mode !== "transmitter") {
          this.out.push(pdu(SUBMIT_SM | RESPONSE, ESME_RINVBNDSTS, sequence));
          return;
        }
        let at = cstring(buffer, body, end)[1]; // service_type
        const sourceTon = buffer[at];
        const sourceNpi = buffer[at + 1];
        const [source, afterSource] = cstring(buffer, at + 2, end);
        at = afterSource;
        const destTon = buffer[at];
        const destNpi = buffer[at + 1];
        const [destination, afterDestination] = cstring(buffer, at + 2, end);
        stats.submits++;
        const id = (++nextId).toString(16);
        this.out.push(pdu(SUBMIT_SM | RESPONSE, 0, sequence, cstr(id)));
        if (values["receipts-when-asked"] && !asksReceipt(buffer, afterDestination, end)) return;
        submitted.push({
          systemId: this.systemId,
          id,
          source,
          sourceTon,
          sourceNpi,
          destination,
          destTon,
          destNpi,
          submittedAt: Date.now(),
          failed: failRate > 0 && Math.random() < failRate,
        });
        return;
      }
      case DELIVER_SM_RESP: {
        const receipt = this.unanswered.get(sequence);
        if (!receipt) return;
        this.unanswered.delete(sequence);
        if (status === 0) stats.receiptsAcked++;
        else {
          // The ESME could not take it now: send it again a little later, as SMSCs do.
          stats.receiptsRefused++;
          stats.receiptsSent--;
          setTimeout(() => route([receipt]), 200);
        }
        this.pumpReceipts();
        return;
      }
      case ENQUIRE_LINK:
        stats.enquireLinks++;
        this.out.push(pdu(ENQUIRE_LINK | RESPONSE, 0, sequence));
        return;
      case UNBIND:
        this.out.push(pdu(UNBIND | RESPONSE, 0, sequence));
        this.flush();
        this.socket.end();
        return;
      default:
        if (commandId & RESPONSE) return;
        this.out.push(pdu(0x80000000, ESME_RINVCMDID, sequence));
    }
  }

  queueReceipts(receipts) {
    for (const receipt of receipts) this.backlog.push(receipt);
    this.pumpReceipts();
    this.flush();
  }

  pumpReceipts() {
    while (this.backlog.length > 0 && this.unanswered.size < deliverWindow && !this.socket.destroyed) {
      const receipt = this.backlog.shift();
      stats.receiptsWaiting--;
      this.sequence = (this.sequence % 0x7fffffff) + 1;
      this.unanswered.set(this.sequence, receipt);
      this.out.push(pdu(DELIVER_SM, 0, this.sequence, receiptBody(receipt)));
      stats.receiptsSent++;
    }
  }

  flush() {
    if (this.out.length === 0) return;
    const data = this.out.length === 1 ? this.out[0] : Buffer.concat(this.out);
    this.out = [];
    if (!this.socket.destroyed) this.socket.write(data);
  }

  closed() {
    stats.connections--;
    if (this.takesReceipts) {
      const list = receivers.get(this.systemId) ?? [];
      receivers.set(
        this.systemId,
        list.filter((connection) => connection !== this),
      );
      // Receipts not yet answered go out again over another bind, as an SMSC keeps them until acknowledged.
      const waiting = this.backlog;
      this.backlog = [];
      stats.receiptsWaiting -= waiting.length;
      stats.receiptsSent -= this.unanswered.size;
      const again = [...this.unanswered.values(), ...waiting];
      this.unanswered.clear();
      if (again.length > 0) route(again);
    }
  }
}

/** Hands due receipts to the account's receiving binds, in turn. */
function route(receipts) {
  stats.receiptsWaiting += receipts.length;
  const bySystem = new Map();
  for (const receipt of receipts) {
    const list = bySystem.get(receipt.systemId) ?? [];
    list.push(receipt);
    bySystem.set(receipt.systemId, list);
  }
  for (const [systemId, list] of bySystem) {
    const targets = receivers.get(systemId) ?? [];
    if (targets.length === 0) {
      // Nobody to deliver to yet: keep them until a receiver binds.
      stats.receiptsWaiting -= list.length;
      setTimeout(() => route(list), 500);
      continue;
    }
    const turn = (receiverTurn.get(systemId) ?? 0) % targets.length;
    receiverTurn.set(systemId, turn + 1);
    targets[turn].queueReceipts(list);
  }
}

const server = net.createServer((socket) => new Connection(socket));
server.listen(Number(values.port), values.host, () => {
  const { port } = server.address();
  if (values.json) console.log(JSON.stringify({ listening: port }));
  else console.log(`bench SMSC listening on ${values.host}:${port}`);
});

let last = { ...stats };
const started = Date.now();
setInterval(() => {
  const line = { t: Math.round((Date.now() - started) / 1000), ...stats };
  if (values.json) console.log(JSON.stringify(line));
  else if (!values.quiet && (stats.submits !== last.submits || stats.receiptsAcked !== last.receiptsAcked)) {
    console.log(
      `${line.t}s binds ${stats.binds} submits ${stats.submits} (+${stats.submits - last.submits}/s) receipts sent ${stats.receiptsSent} acked ${stats.receiptsAcked} (+${stats.receiptsAcked - last.receiptsAcked}/s) refused ${stats.receiptsRefused} waiting ${stats.receiptsWaiting}`,
    );
  }
  last = { ...stats };
}, 1000).unref();

process.on("SIGTERM", () => process.exit(0));
process.on("SIGINT", () => process.exit(0));
