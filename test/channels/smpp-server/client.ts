// An ESME for the SMPP server tests, on the `smpp` npm package's client: binds, submits and
// collects what the server delivers (answering ESME_ROK unless told otherwise).
import type { ConnectionOptions } from "node:tls";
import type { Pdu, Session } from "smpp";
import smpp from "smpp";
import { afterAll, afterEach } from "vitest";
import type { Engine } from "../../../src/base/store/engine.js";
import { type SmppSettingsChanges, setSmppSettings } from "../../../src/channels/smpp-server/index.js";
import {
  buildAccount,
  type TestAccount,
  type TestGateway,
  type TestGatewayOptions,
  useTestGateway,
} from "../../helpers/gateway.js";

/** The clients connected and not yet destroyed, each with the SMPP port it connected to. */
const open = new Set<EsmeClient>();
/** The ports of the gateways of useSmppTestGateway: their suites destroy their own clients. */
const ownedPorts = new Set<number>();

afterEach(() => {
  for (const client of open) {
    if (ownedPorts.has(client.port)) continue;
    open.delete(client);
    client.destroy();
  }
});

/**
 * useTestGateway, and after each test of the suite the clients connected to this gateway's
 * SMPP server are destroyed, and only those: the engines' suites can run at the same time
 * (describeEnginesTogether) without one's test ending the other's clients.
 */
export function useSmppTestGateway(engine: Engine, options: TestGatewayOptions = {}): () => TestGateway {
  const gateway = useTestGateway(engine, options);
  let port: number | undefined;
  afterEach(() => {
    port ??= smppPort(gateway());
    ownedPorts.add(port);
    for (const client of open) {
      if (client.port !== port) continue;
      open.delete(client);
      client.destroy();
    }
  });
  // Its port may be another file's gateway's next: that file's clients are the shared hook's again.
  afterAll(() => {
    if (port !== undefined) ownedPorts.delete(port);
  });
  return () => {
    const t = gateway();
    ownedPorts.add(smppPort(t));
    return t;
  };
}

/** Leaves the clients of another server's `port` to the test that connects them (it ends them itself). */
export function keepClientsOf(port: number): void {
  ownedPorts.add(port);
}

export class EsmeClient {
  readonly delivered: Pdu[] = [];
  /** The deliver_sm answered ESME_ROK, in the order they were answered. */
  readonly accepted: Pdu[] = [];
  /** The command_status to answer each deliver_sm with (default ESME_ROK); null: no answer. */
  answerDeliver: (pdu: Pdu) => number | null = () => 0;
  /** Whether to answer the server's enquire_link. */
  answerEnquireLink = true;
  enquireLinks = 0;
  unbinds = 0;
  closed = false;

  constructor(
    readonly session: Session,
    /** The SMPP server's port it connected to. */
    readonly port: number,
  ) {
    session.on("error", () => undefined);
    session.on("close", () => {
      this.closed = true;
    });
    session.on("deliver_sm", (pdu: Pdu) => {
      this.delivered.push(pdu);
      const status = this.answerDeliver(pdu);
      if (status === null) return;
      if (status === 0) this.accepted.push(pdu);
      session.send(pdu.response({ command_status: status }));
    });
    session.on("enquire_link", (pdu: Pdu) => {
      this.enquireLinks++;
      if (this.answerEnquireLink) session.send(pdu.response());
    });
    session.on("unbind", (pdu: Pdu) => {
      this.unbinds++;
      session.send(pdu.response());
      session.close();
    });
  }

  request(command: string, fields: Record<string, unknown> = {}): Promise<Pdu> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${command} got no answer`)), 15_000);
      const pdu = new smpp.PDU(command, fields);
      this.session.send(pdu, (answer: Pdu) => {
        clearTimeout(timer);
        resolve(answer);
      });
    });
  }

  bind(mode: "transmitter" | "receiver" | "transceiver", systemId: string, password: string): Promise<Pdu> {
    return this.request(`bind_${mode}`, { system_id: systemId, password });
  }

  submit(fields: Record<string, unknown>): Promise<Pdu> {
    return this.request("submit_sm", fields);
  }

  /** Resolves once `count` deliver_sm have come. */
  async waitDelivered(count: number, timeoutMs = 20_000): Promise<Pdu[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.delivered.length < count) {
      if (Date.now() > deadline) throw new Error(`${this.delivered.length} of ${count} deliver_sm came`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return this.delivered;
  }

  destroy(): void {
    this.session.destroy();
  }
}

export function smppPort(t: TestGateway): number {
  const port = t.gateway.smpp?.ports.port;
  if (port === undefined) throw new Error("the test gateway has no SMPP server (SMPP_SERVER_PORT=auto)");
  return port;
}

/** A connected client; with `tls`, over TLS with those options (the CA to trust, ...). */
export function connectEsme(port: number, tls?: ConnectionOptions): Promise<EsmeClient> {
  // The package hands these to tls.connect (its own typing names only host and port).
  const options = { host: "127.0.0.1", port, ...(tls ? { tls: true, ...tls } : {}) };
  return new Promise((resolve, reject) => {
    const session = smpp.connect(options, () => {
      const client = new EsmeClient(session, port);
      open.add(client);
      resolve(client);
    });
    session.once("error", reject);
  });
}

export interface SmppAccount extends TestAccount {
  smppPassword: string;
}

/** A funded account (sender SWBRD approved, DLT scrubbing off) with SMPP access and no submit limit. */
export async function smppAccount(
  t: TestGateway,
  changes: SmppSettingsChanges = {},
  options: Parameters<typeof buildAccount>[1] = {},
): Promise<SmppAccount> {
  const account = await buildAccount(t, options);
  const smppPassword = `s${Math.random().toString(36).slice(2, 9)}`;
  await setSmppSettings(t.db.store, t.clock, account.username, {
    password: smppPassword,
    submitsPerSecond: 0,
    ...changes,
  });
  return { ...account, smppPassword };
}

export async function boundEsme(
  t: TestGateway,
  account: SmppAccount,
  mode: "transmitter" | "receiver" | "transceiver" = "transceiver",
): Promise<EsmeClient> {
  const client = await connectEsme(smppPort(t));
  const answer = await client.bind(mode, account.username, account.smppPassword);
  if (answer.command_status !== 0) throw new Error(`bind refused: ${answer.command_status}`);
  return client;
}

/** Waits until `check` holds, looking every 25 ms. */
export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
  what = "condition",
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * The account's promotional hours: one minute half a day away, so its promotional submits are
 * held as scheduled messages (what cancel_sm cancels); and promo sender on, so they may come from
 * its own sender ID SWBRD (decision 0183). Set before the account's first submit: the rules are
 * read once and kept.
 */
export async function holdPromotional(t: TestGateway, accountId: number): Promise<void> {
  const kolkata = new Date(Date.now() + 330 * 60_000);
  const hour = String((kolkata.getUTCHours() + 12) % 24).padStart(2, "0");
  await t.db.store.db
    .updateTable("accounts")
    .set({ promo_hours: `${hour}:00-${hour}:01`, promo_sender_enabled: 1 })
    .where("id", "=", accountId)
    .execute();
}
