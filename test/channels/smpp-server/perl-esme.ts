// Runs test/smpp-server/perl-esme.pl, an ESME built on Perl's Net::SMPP, as a child process
// connected to the gateway's SMPP server: passes it commands (bind, submit, query_sm, cancel_sm, how to
// answer deliver_sm, unbind), collects the JSON line it writes for every PDU, and kills its process
// group when the test ends.
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterEach } from "vitest";

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), "perl-esme.pl");

export interface EsmeEvent {
  event: "pdu" | "sent" | "closed" | "error";
  command?: string;
  seq?: number;
  status?: number;
  /** The test's name for the submit, query or cancel a submit_sm_resp, query_sm_resp or cancel_sm_resp answers. */
  ref?: string;
  message_id?: string;
  /** A query_sm_resp's fields (ESME_ROK only). */
  final_date?: string;
  message_state?: number;
  error_code?: number;
  /** A bind_*_resp's system_id. */
  system_id?: string;
  source?: string;
  destination?: string;
  esm_class?: number;
  data_coding?: number;
  /** short_message in hex. */
  short_message?: string;
  /** TLVs by 4-digit hex tag, each value in hex. */
  tlvs?: Record<string, string>;
  why?: string;
  message?: string;
}

export interface PerlSubmit {
  ref: string;
  source: string;
  destination: string;
  /** In hex. */
  short_message?: string;
  message_payload?: string;
  data_coding?: number;
  esm_class?: number;
  registered_delivery?: number;
  service_type?: string;
  sar?: [reference: number, total: number, sequence: number];
  /** Vendor TLVs by hex tag ("1402"), each value in hex. */
  tlvs?: Record<string, string>;
}

const running = new Set<PerlEsme>();

afterEach(() => {
  for (const esme of running) esme.kill();
  running.clear();
});

process.once("exit", () => {
  for (const esme of running) esme.kill();
});

export class PerlEsme {
  readonly events: EsmeEvent[] = [];
  private stderr = "";

  private constructor(private readonly child: ChildProcess) {}

  static async connect(port: number): Promise<PerlEsme> {
    const child = spawn("perl", [SCRIPT, "--port", String(port)], {
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const esme = new PerlEsme(child);
    running.add(esme);
    child.stderr!.on("data", (chunk: Buffer) => {
      esme.stderr = (esme.stderr + chunk.toString("utf8")).slice(-8_000);
    });
    const lines = createInterface({ input: child.stdout! });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`perl ESME did not connect: ${esme.stderr}`)), 10_000);
      child.once("exit", (code) => reject(new Error(`perl ESME exited with ${code}: ${esme.stderr}`)));
      let connected = false;
      lines.on("line", (line) => {
        if (!connected) {
          connected = line === "CONNECTED";
          clearTimeout(timer);
          if (connected) resolve();
          else reject(new Error(`perl ESME said ${JSON.stringify(line)} first`));
          return;
        }
        esme.events.push(JSON.parse(line) as EsmeEvent);
      });
    });
    return esme;
  }

  private control(command: Record<string, unknown>): void {
    this.child.stdin!.write(`${JSON.stringify(command)}\n`);
  }

  /** Binds and answers the bind_*_resp's command_status. */
  async bind(mode: "transmitter" | "receiver" | "transceiver", systemId: string, password: string): Promise<number> {
    const before = this.received(`bind_${mode}_resp`).length;
    this.control({ command: "bind", mode, system_id: systemId, password });
    await this.waitFor(() => this.received(`bind_${mode}_resp`).length > before, `bind_${mode}_resp`);
    return this.received(`bind_${mode}_resp`)[before]!.status!;
  }

  /** Sends a submit_sm and answers its submit_sm_resp. */
  async submit(submit: PerlSubmit): Promise<EsmeEvent> {
    this.send(submit);
    return this.answerTo(submit.ref);
  }

  /** Sends a submit_sm without waiting for its answer. */
  send(submit: PerlSubmit): void {
    this.control({ command: "submit", ...submit });
  }

  async answerTo(ref: string): Promise<EsmeEvent> {
    const answer = () => this.received("submit_sm_resp").find((event) => event.ref === ref);
    await this.waitFor(() => answer() !== undefined, `the answer to ${ref}`);
    return answer()!;
  }

  /** Sends a query_sm and answers its query_sm_resp. */
  async query(ref: string, messageId: string, source: string): Promise<EsmeEvent> {
    this.control({ command: "query", ref, message_id: messageId, source });
    const answer = () => this.received("query_sm_resp").find((event) => event.ref === ref);
    await this.waitFor(() => answer() !== undefined, `the answer to ${ref}`);
    return answer()!;
  }

  /** Sends a cancel_sm (by id, or by addresses with an empty id) and answers its cancel_sm_resp. */
  async cancel(
    ref: string,
    fields: { message_id: string; source: string; destination?: string; service_type?: string },
  ): Promise<EsmeEvent> {
    this.control({ command: "cancel", ref, ...fields });
    const answer = () => this.received("cancel_sm_resp").find((event) => event.ref === ref);
    await this.waitFor(() => answer() !== undefined, `the answer to ${ref}`);
    return answer()!;
  }

  /** How to answer the deliver_sm that follow (a command_status). */
  answerDeliver(status: number): void {
    this.control({ command: "answer", status });
  }

  unbind(): void {
    this.control({ command: "unbind" });
  }

  received(command?: string): EsmeEvent[] {
    return this.events.filter((event) => event.event === "pdu" && (!command || event.command === command));
  }

  /** The deliver_sm that came, once at least `count` did. */
  async delivered(count: number, timeoutMs = 20_000): Promise<EsmeEvent[]> {
    await this.waitFor(() => this.received("deliver_sm").length >= count, `${count} deliver_sm`, timeoutMs);
    return this.received("deliver_sm");
  }

  get closed(): boolean {
    return this.events.some((event) => event.event === "closed") || this.child.exitCode !== null;
  }

  async waitFor(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > until) {
        const tail = this.events.slice(-8).map((event) => JSON.stringify(event));
        throw new Error(
          `perl ESME: ${what} not seen within ${timeoutMs} ms; last events:\n${tail.join("\n")}\n${this.stderr}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  kill(): void {
    running.delete(this);
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    try {
      process.kill(-this.child.pid!, "SIGKILL");
    } catch {
      // Gone already.
    }
  }
}

/** The receipt text and TLVs of a deliver_sm event. */
export function receiptOf(event: EsmeEvent): { text: string; receiptedId: string; state: number } {
  const tlvs = event.tlvs ?? {};
  return {
    text: Buffer.from(event.short_message ?? "", "hex").toString("latin1"),
    receiptedId: Buffer.from(tlvs["001e"] ?? "", "hex")
      .toString("latin1")
      .replace(/\0+$/, ""),
    state: Number.parseInt(tlvs["0427"] ?? "ff", 16),
  };
}
