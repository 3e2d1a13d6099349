// The SMPP 3.4 server account holders bind to as ESMEs (issue 21): plain TCP and optionally TLS
// listeners, the binds of each account with their limits, and the deliver_sm each account is
// owed (smpp_outbox), sent in order over its receiver and transceiver binds and deleted only
// when the client answered ESME_ROK.
import fs from "node:fs";
import net from "node:net";
import tls from "node:tls";
import type { Authenticator } from "../auth/index.js";
import { encodeGsm7 } from "../carriers/smpp/index.js";
import { isGatewayError } from "../core/errors.js";
import type { AcceptService } from "../messages/index.js";
import type { Runtime } from "../runtime/runtime.js";
import type { SmsPolicy } from "../sms/index.js";
import { WEBHOOKS_QUEUED } from "../webhooks/outbox.js";
import { Bind, type BindHost } from "./bind.js";
import type { OutboxPayload } from "./outbox.js";
import { type DeliverSm, MalformedPdu, readDataSm, readSubmitMulti, readSubmitSm, TLV } from "./pdu.js";
import { addressAllowed, smppSettingsOf } from "./settings.js";
import { STATUS } from "./status.js";
import { type BoundAccount, type SubmitResult, Submitter } from "./submit.js";

export interface SmppServerDeps extends Runtime {
  authenticator: Authenticator;
  acceptor: AcceptService;
  smsPolicy: SmsPolicy;
}

/** A bind as the operator sees it. */
export interface BindView {
  id: number;
  username: string;
  mode: string;
  address: string;
  since: string;
  submits: number;
}

const ROUTE_ORDER = ["T", "P", "PS", "I"];
/** How long a deliver_sm handed to a bind is kept from other processes' binds. */
const LEASE_MS = 60_000;
/** After a refused or unanswered deliver_sm, the row waits this long before it is tried again. */
const RETRY_MS = 5_000;
const POLL_MS = 1_000;

export class SmppServer {
  private readonly servers: net.Server[] = [];
  private readonly binds = new Map<number, Set<Bind>>();
  private readonly all = new Set<Bind>();
  private readonly submitter: Submitter;
  private readonly pumping = new Set<number>();
  private readonly again = new Set<number>();
  /** Outbox rows on their way to a bind of this process. */
  private readonly sending = new Set<number>();
  private unsubscribe: (() => void) | undefined;
  private poller: NodeJS.Timeout | undefined;
  private stopping = false;
  private readonly host: BindHost;
  ports: { port?: number; tlsPort?: number } = {};

  constructor(private readonly deps: SmppServerDeps) {
    this.submitter = new Submitter({
      smsPolicy: deps.smsPolicy,
      acceptor: deps.acceptor,
      dltEntityTag: deps.config.smppServer.dltEntityTag,
      dltTemplateTag: deps.config.smppServer.dltTemplateTag,
    });
    this.host = {
      window: deps.config.smppServer.window,
      enquireLinkMs: deps.config.smppServer.enquireLinkSeconds * 1000,
      idleMs: deps.config.smppServer.idleSeconds * 1000,
      responseTimeoutMs: deps.config.smppServer.responseTimeoutMs,
      systemId: "Switchboard",
      authenticate: (bind, systemId, password) => this.authenticate(bind, systemId, password),
      submit: (bind, command, body) => this.submit(bind, command, body),
      bound: (bind) => {
        this.deps.logger.info(
          { account: bind.account?.principal.username, mode: bind.mode, address: bind.address, bind: bind.id },
          "SMPP client bound",
        );
        if (bind.canReceive && bind.account) this.pump(bind.account.principal.accountId);
      },
      closed: (bind) => {
        this.all.delete(bind);
        const accountId = bind.account?.principal.accountId;
        if (accountId === undefined) return;
        const set = this.binds.get(accountId);
        set?.delete(bind);
        if (set?.size === 0) this.binds.delete(accountId);
      },
      ready: (bind) => {
        if (bind.account) this.pump(bind.account.principal.accountId);
      },
      warn: (message, details) => this.deps.logger.warn(details, message),
    };
  }

  async start(): Promise<void> {
    const { smppServer: settings, host } = this.deps.config;
    const onSocket = (socket: net.Socket) => {
      if (this.stopping) {
        socket.destroy();
        return;
      }
      const bind = new Bind(socket, this.host);
      this.all.add(bind);
    };
    if (settings.port !== 0) {
      const server = net.createServer(onSocket);
      this.ports.port = await listen(server, settings.port === "auto" ? 0 : settings.port, host);
      this.servers.push(server);
    }
    if (settings.tlsPort !== 0) {
      const server = tls.createServer(
        { cert: fs.readFileSync(settings.tlsCertFile!), key: fs.readFileSync(settings.tlsKeyFile!) },
        onSocket,
      );
      server.on("tlsClientError", () => undefined);
      this.ports.tlsPort = await listen(server, settings.tlsPort === "auto" ? 0 : settings.tlsPort, host);
      this.servers.push(server);
    }
    this.unsubscribe = this.deps.store.signals.listen(WEBHOOKS_QUEUED, () => this.pumpAll());
    this.poller = setInterval(() => this.pumpAll(), POLL_MS);
    this.poller.unref();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.unsubscribe?.();
    clearInterval(this.poller);
    await Promise.all([...this.all].map((bind) => bind.unbind()));
    await Promise.all(this.servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    this.submitter.close();
  }

  /** Every bound client. */
  list(): BindView[] {
    const views: BindView[] = [];
    for (const bind of this.all) {
      if (!bind.isBound || !bind.account) continue;
      views.push({
        id: bind.id,
        username: bind.account.principal.username,
        mode: bind.mode ?? "",
        address: bind.address,
        since: new Date(bind.since).toISOString(),
        submits: bind.submits,
      });
    }
    return views.sort((a, b) => a.id - b.id);
  }

  /** Unbinds one bind by id; false when there is none. */
  async disconnect(id: number): Promise<boolean> {
    const bind = [...this.all].find((b) => b.id === id);
    if (!bind) return false;
    await bind.unbind();
    return true;
  }

  /**
   * A wrong system_id, password, an account without SMPP access, a locked login or an address
   * the account does not allow all answer ESME_RINVPASWD alike; only a client that proved the
   * password learns more (ESME_RBINDFAIL: account not active, or all its binds in use).
   */
  private async authenticate(
    bind: Bind,
    systemId: string,
    password: string,
  ): Promise<{ status: number; account?: BoundAccount }> {
    const refused = { status: STATUS.ESME_RINVPASWD };
    let principal: Awaited<ReturnType<Authenticator["bySmppPassword"]>>;
    try {
      principal = await this.deps.authenticator.bySmppPassword(systemId, password, bind.address);
    } catch (error) {
      if (isGatewayError(error) && (error.code === "unauthorized" || error.code === "account_locked")) {
        return refused;
      }
      throw error;
    }
    const db = this.deps.store.db;
    const [settings, account] = await Promise.all([
      smppSettingsOf(db, principal.accountId),
      db.selectFrom("accounts").select("routes").where("id", "=", principal.accountId).executeTakeFirst(),
    ]);
    if (!settings || !account || !addressAllowed(settings.allowed_ips, bind.address)) return refused;
    if (principal.status !== "active") return { status: STATUS.ESME_RBINDFAIL };
    const set = this.binds.get(principal.accountId) ?? new Set<Bind>();
    if (settings.max_binds > 0 && set.size >= settings.max_binds) return { status: STATUS.ESME_RBINDFAIL };
    set.add(bind);
    this.binds.set(principal.accountId, set);
    const routes = account.routes.split(",").map((r) => r.trim().toUpperCase());
    return {
      status: STATUS.ESME_ROK,
      account: {
        principal,
        defaultRoute: ROUTE_ORDER.find((code) => routes.includes(code)) ?? "T",
        submitsPerSecond: settings.submits_per_second,
      },
    };
  }

  private async submit(
    bind: Bind,
    command: "submit_sm" | "data_sm" | "submit_multi",
    body: Buffer,
  ): Promise<SubmitResult> {
    let fields: ReturnType<typeof readSubmitSm>;
    try {
      fields =
        command === "submit_sm" ? readSubmitSm(body) : command === "data_sm" ? readDataSm(body) : readSubmitMulti(body);
    } catch (error) {
      if (error instanceof MalformedPdu) return { status: error.status, messageId: "", reason: error.message };
      throw error;
    }
    if (command === "submit_multi" && (fields.destinations.length === 0 || fields.destinations.length > 255)) {
      return { status: STATUS.ESME_RINVNUMDESTS, messageId: "", reason: "no destination" };
    }
    return this.submitter.submit(bind.account!, fields, command === "submit_multi");
  }

  private pumpAll(): void {
    for (const accountId of this.binds.keys()) this.pump(accountId);
  }

  /** Sends what the account is owed over its receiving binds, oldest first, within their windows. */
  private pump(accountId: number): void {
    if (this.stopping) return;
    if (this.pumping.has(accountId)) {
      this.again.add(accountId);
      return;
    }
    this.pumping.add(accountId);
    void this.pumpOnce(accountId)
      .catch((error: unknown) => this.deps.logger.warn({ err: error }, "SMPP deliver_sm pump failed"))
      .finally(() => {
        this.pumping.delete(accountId);
        if (this.again.delete(accountId)) this.pump(accountId);
      });
  }

  private async pumpOnce(accountId: number): Promise<void> {
    const receivers = [...(this.binds.get(accountId) ?? [])].filter((b) => b.canReceive);
    const free = receivers.reduce((sum, b) => sum + b.freeSlots, 0);
    if (free === 0) return;
    const now = this.deps.clock.now().getTime();
    const db = this.deps.store.db;
    const due = await db
      .selectFrom("smpp_outbox")
      .select("id")
      .where("account_id", "=", accountId)
      .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", now)]))
      .orderBy("id")
      .limit(free + this.sending.size)
      .execute();
    const ids = due
      .map((row) => Number(row.id))
      .filter((id) => !this.sending.has(id))
      .slice(0, free);
    if (ids.length === 0) return;
    const claimed = await db
      .updateTable("smpp_outbox")
      .set((eb) => ({ lease_until: now + LEASE_MS, attempts: eb("attempts", "+", 1) }))
      .where("id", "in", ids)
      .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", now)]))
      .returning(["id", "payload"])
      .execute();
    claimed.sort((a, b) => Number(a.id) - Number(b.id));
    let turn = 0;
    for (const row of claimed) {
      const id = Number(row.id);
      let bind: Bind | undefined;
      for (let i = 0; i < receivers.length && !bind; i++) {
        const candidate = receivers[(turn + i) % receivers.length]!;
        if (candidate.freeSlots > 0) bind = candidate;
      }
      turn++;
      if (!bind) {
        await db.updateTable("smpp_outbox").set({ lease_until: null }).where("id", "=", id).execute();
        continue;
      }
      this.sending.add(id);
      void bind
        .deliver(deliverSmOf(JSON.parse(row.payload) as OutboxPayload))
        .then((status) => this.settle(id, status))
        .catch((error: unknown) => this.deps.logger.warn({ err: error }, "SMPP deliver_sm failed"))
        .finally(() => this.sending.delete(id));
    }
  }

  /** ESME_ROK: the client has it, the row goes; anything else: it waits and is tried again. */
  private async settle(id: number, status: number | "lost"): Promise<void> {
    const db = this.deps.store.db;
    if (status === STATUS.ESME_ROK) {
      await db.deleteFrom("smpp_outbox").where("id", "=", id).execute();
      return;
    }
    // lease_until is when the row is due again: RETRY_MS from now, not at once.
    const retryAt = this.deps.clock.now().getTime() + RETRY_MS;
    await db.updateTable("smpp_outbox").set({ lease_until: retryAt }).where("id", "=", id).execute();
  }
}

function listen(server: net.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}

/** The deliver_sm of an outbox row: a receipt (esm_class 0x04, with its TLVs) or an MO message. */
export function deliverSmOf(payload: OutboxPayload): DeliverSm {
  if (payload.kind === "receipt") {
    return {
      source: payload.source,
      destination: payload.destination,
      esmClass: 0x04,
      dataCoding: 0,
      message: Buffer.from(payload.text, "latin1"),
      tlvs: [
        [TLV.receipted_message_id, Buffer.from(`${payload.id}\0`, "latin1")],
        [TLV.message_state, Buffer.from([payload.state])],
      ],
    };
  }
  let message: Buffer;
  let dataCoding = 0;
  try {
    message = encodeGsm7(payload.text);
  } catch {
    message = Buffer.from(payload.text, "utf16le").swap16();
    dataCoding = 8;
  }
  return { source: payload.source, destination: payload.destination, esmClass: 0, dataCoding, message, tlvs: [] };
}
