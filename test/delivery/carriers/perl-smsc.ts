// Runs test/carriers/perl-smsc.pl, an SMSC built on Perl's Net::SMPP (Debian libnet-smpp-perl),
// as a child process on an ephemeral port of 127.0.0.1: reads its port, collects the JSON line it
// writes for every PDU it receives or sends, passes control commands (MO messages, unbind, drop)
// on its stdin, and kills its process group when the test ends.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterEach } from "vitest";

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), "perl-smsc.pl");

/** Whether `perl -MNet::SMPP -e1` works, and why not when it does not. */
export function perlSmscAvailable(): { available: true } | { available: false; reason: string } {
  const probe = spawnSync("perl", ["-MNet::SMPP", "-e1"], { encoding: "utf8", timeout: 10_000 });
  if (probe.error) return { available: false, reason: `perl did not run: ${probe.error.message}` };
  if (probe.status !== 0) {
    const why = (probe.stderr.split("\n")[0] ?? "").replace(/ \(@INC contains:.*$/, "").slice(0, 200);
    return { available: false, reason: `perl -MNet::SMPP -e1 failed (install libnet-smpp-perl): ${why}` };
  }
  return { available: true };
}

export interface PerlSmscOptions {
  /** 0 (default) for an ephemeral port; a port given binds it again, e.g. after a restart. */
  port?: number;
  systemId?: string;
  password?: string;
  receiptDelayMs?: number;
  /** How receipts name the message: as given in submit_sm_resp (hex), or that number in decimal. */
  receiptIds?: "hex" | "decimal";
  /** Add receipted_message_id and message_state to receipts. */
  receiptTlvs?: boolean;
  /** The first message id, in hex (ids count up from it). */
  firstId?: string;
  /** A regular expression: destinations it matches get UNDELIV receipts (default `666$`). */
  failDestination?: string;
  /** Parts whose text contains this get UNDELIV receipts. */
  failText?: string;
  failErr?: string;
}

/** What the SMSC logs: a PDU it received (`pdu`), a request it sent (`sent`), connections and errors. */
export interface SmscEvent {
  event: "pdu" | "sent" | "connected" | "closed" | "error";
  conn?: number;
  command?: string;
  seq?: number;
  /** The command_status of a PDU received. */
  status?: number;
  /** The command_status the SMSC answered with. */
  answer?: number;
  system_id?: string;
  interface_version?: number;
  service_type?: string;
  source?: string;
  source_ton?: number;
  source_npi?: number;
  destination?: string;
  dest_ton?: number;
  dest_npi?: number;
  esm_class?: number;
  registered_delivery?: number;
  data_coding?: number;
  /** short_message in hex, UDH included. */
  short_message?: string;
  /** TLVs by 4-digit hex tag, each value in hex. */
  tlvs?: Record<string, string>;
  message_id?: string;
  kind?: "receipt" | "mo";
  receipt_for?: string;
  stat?: string;
  text?: string;
  message?: string;
  why?: string;
}

function parsed(line: string): SmscEvent {
  try {
    return JSON.parse(line) as SmscEvent;
  } catch {
    return { event: "error", message: `not a JSON line: ${line}` };
  }
}

const running = new Set<PerlSmsc>();

afterEach(async () => {
  await Promise.all([...running].map((smsc) => smsc.stop()));
});

// A worker that dies without its afterEach still takes its SMSCs along (they also exit on stdin EOF).
process.once("exit", () => {
  for (const smsc of running) smsc.killNow();
});

export class PerlSmsc {
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
    readonly options: PerlSmscOptions,
    /** Everything it logged, in order. */
    readonly events: SmscEvent[],
    private readonly exited: Promise<void>,
    private readonly stderr: () => string,
  ) {}

  static async start(options: PerlSmscOptions = {}): Promise<PerlSmsc> {
    const args = [SCRIPT, "--port", String(options.port ?? 0)];
    const flags: Array<[string, string | number | undefined]> = [
      ["--system-id", options.systemId],
      ["--password", options.password],
      ["--receipt-delay-ms", options.receiptDelayMs],
      ["--receipt-ids", options.receiptIds],
      ["--first-id", options.firstId],
      ["--fail-destination", options.failDestination],
      ["--fail-text", options.failText],
      ["--fail-err", options.failErr],
    ];
    for (const [flag, value] of flags) if (value !== undefined) args.push(flag, String(value));
    if (options.receiptTlvs) args.push("--receipt-tlvs");
    // Its own process group, so stop() can kill whatever it became.
    const child = spawn("perl", args, { detached: true, stdio: ["pipe", "pipe", "pipe"] });
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString("utf8")).slice(-8_000);
    });
    const events: SmscEvent[] = [];
    let port: number | undefined;
    const lines = createInterface({ input: child.stdout });
    const bound = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => fail("no PORT line within 10 s"), 10_000);
      function fail(why: string) {
        clearTimeout(timer);
        if (child.exitCode === null) process.kill(-child.pid!, "SIGKILL");
        reject(new Error(`perl SMSC did not start: ${why}; stderr: ${stderr.trim()}`));
      }
      const failed = (error: Error) => fail(error.message);
      const ended = (code: number | null, signal: string | null) => fail(`exited with ${code ?? signal}`);
      child.once("error", failed);
      child.once("exit", ended);
      // One listener from the start: readline emits the lines of a chunk synchronously, one after another.
      lines.on("line", (line) => {
        if (port !== undefined) {
          events.push(parsed(line));
          return;
        }
        const match = /^PORT (\d+)$/.exec(line);
        if (!match) return fail(`first line ${JSON.stringify(line)}`);
        clearTimeout(timer);
        child.off("exit", ended);
        child.off("error", failed);
        port = Number(match[1]);
        resolve(port);
      });
    });
    const smsc = new PerlSmsc(child, bound, options, events, exited, () => stderr);
    running.add(smsc);
    return smsc;
  }

  /** The PDUs the SMSC received, of one command when given. */
  received(command?: string): SmscEvent[] {
    return this.events.filter((event) => event.event === "pdu" && (!command || event.command === command));
  }

  /** Waits until the SMSC logged at least `count` PDUs of `command`, and answers all of them. */
  async awaitReceived(command: string, count: number): Promise<SmscEvent[]> {
    await this.waitFor(() => this.received(command).length >= count, `${count} ${command}`);
    return this.received(command);
  }

  /** The requests the SMSC sent, of one kind (receipt, mo) when given. */
  sent(kind?: SmscEvent["kind"]): SmscEvent[] {
    return this.events.filter((event) => event.event === "sent" && (!kind || event.kind === kind));
  }

  /** Sends a mobile-originated deliver_sm (esm_class 0 unless given) to a receiving bind. */
  sendMo(mo: { source: string; destination: string; shortMessage: Buffer; dataCoding?: number; esmClass?: number }) {
    this.control({
      command: "mo",
      source: mo.source,
      destination: mo.destination,
      short_message: mo.shortMessage.toString("hex"),
      data_coding: mo.dataCoding ?? 0,
      esm_class: mo.esmClass ?? 0,
    });
  }

  /** `enquire_link` / `unbind` to every bound connection, or `drop` every connection. */
  control(command: Record<string, unknown>): void {
    this.child.stdin?.write(`${JSON.stringify(command)}\n`);
  }

  async waitFor(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > until) {
        const tail = this.events.slice(-10).map((event) => JSON.stringify(event));
        throw new Error(`perl SMSC: ${what} not seen within ${timeoutMs} ms; last events:\n${tail.join("\n")}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** Kills it at once, as a crashing SMSC dies: no unbind, sockets reset. */
  async kill(): Promise<void> {
    this.killNow();
    await this.exited;
    running.delete(this);
  }

  async stop(): Promise<void> {
    if (!running.has(this)) return;
    this.child.stdin?.end();
    this.signal("SIGTERM");
    const timer = setTimeout(() => this.killNow(), 2_000);
    await this.exited;
    clearTimeout(timer);
    running.delete(this);
    const errors = this.events.filter((event) => event.event === "error");
    if (errors.length > 0 || /\bat .* line \d+/.test(this.stderr())) {
      throw new Error(`perl SMSC reported problems: ${JSON.stringify(errors)} ${this.stderr().trim()}`);
    }
  }

  killNow(): void {
    this.signal("SIGKILL");
  }

  private signal(signal: NodeJS.Signals): void {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    try {
      process.kill(-this.child.pid!, signal);
    } catch {
      // Gone already.
    }
  }
}
