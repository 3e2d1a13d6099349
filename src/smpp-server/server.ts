// The SMPP 3.4 server account holders bind to as ESMEs (issue 21): plain TCP and optionally TLS
// listeners, the binds of each account with their limits (reported to smpp_binds for the
// operator, registry.ts), and the deliver_sm each account is owed (smpp_outbox), sent in order
// over its receiver and transceiver binds and deleted only when the client answered ESME_ROK.
import fs from "node:fs";
import net from "node:net";
import tls from "node:tls";
import { accountStatuses, storedAccountRoutes } from "../accounts/index.js";
import type { Authenticator, Principal } from "../auth/index.js";
import { encodeGsm7 } from "../carriers/smpp/index.js";
import { isGatewayError } from "../core/errors.js";
import type { AcceptService } from "../messages/index.js";
import type { Runtime } from "../runtime/runtime.js";
import type { SmsPolicy } from "../sms/index.js";
import { WEBHOOKS_QUEUED } from "../webhooks/outbox.js";
import { Bind, type BindHost, type RequestOutcome, type SubmitCommand } from "./bind.js";
import type { OutboxPayload } from "./outbox.js";
import { localOutboxWriter, type OutboxWriter } from "./outbox-writes.js";
import { type DeliverSm, MalformedPdu, readDataSm, readSubmitMulti, readSubmitSm, TLV } from "./pdu.js";
import { BIND_REPORT_MS, BindReports, type ReportedBind, SMPP_BIND_DISCONNECT } from "./registry.js";
import { addressAllowed, smppSettingsOf } from "./settings.js";
import { STATUS } from "./status.js";
import { type BoundAccount, type SubmitResult, Submitter } from "./submit.js";

export interface SmppServerDeps extends Runtime {
  authenticator: Authenticator;
  acceptor: AcceptService;
  smsPolicy: SmsPolicy;
  /** Where the pump's writes to smpp_outbox go (default: this store; in `start` on SQLite, the worker thread). */
  outboxWriter?: OutboxWriter;
}

/** A bind of this process. */
export interface BindView {
  id: string;
  username: string;
  mode: string;
  address: string;
  since: string;
  submits: number;
  /** The account's submits per second this bind is held to (0: no limit); follows the operator's changes within a second. */
  submitsPerSecondLimit: number;
  /** Submits being handled and deliver_sm or enquire_link awaiting the client's answer. */
  outstanding: number;
  /** Bytes held for it in memory: answers the socket has not taken, requests read but not started. */
  buffered: number;
}

const ROUTE_ORDER = ["T", "P", "PS", "I"];
const POLL_MS = 1_000;

export class SmppServer {
  private readonly servers: net.Server[] = [];
  private readonly binds = new Map<number, Set<Bind>>();
  private readonly all = new Set<Bind>();
  /** Binds that were bound: counted in /metrics and reported to smpp_binds. */
  private readonly reported = new Set<Bind>();
  private readonly submitter: Submitter;
  private readonly pumping = new Set<number>();
  private readonly again = new Set<number>();
  /** Outbox rows on their way to a bind of this process. */
  private readonly sending = new Set<number>();
  /** Outbox rows the clients took (ESME_ROK), deleted together in the next turn of the event loop. */
  private taken: number[] = [];
  private deleting: Promise<void> | undefined;
  private readonly unsubscribe: Array<() => void> = [];
  private poller: NodeJS.Timeout | undefined;
  private reporter: NodeJS.Timeout | undefined;
  private stopping = false;
  private readonly host: BindHost;
  private readonly reports: BindReports;
  /** How long a deliver_sm handed to a bind is kept from other processes' binds. */
  private readonly leaseMs: number;
  private readonly write: OutboxWriter;
  ports: { port?: number; tlsPort?: number } = {};

  constructor(private readonly deps: SmppServerDeps) {
    this.reports = new BindReports(deps.store, deps.clock, deps.logger);
    this.leaseMs = Math.max(60_000, deps.config.smppServer.responseTimeoutMs + 10_000);
    this.write = deps.outboxWriter ?? localOutboxWriter(deps.store);
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
        this.reported.add(bind);
        this.deps.metrics.smppBinds.inc(bindLabels(bind));
        return this.reports.added(reportOf(bind));
      },
      closed: (bind) => {
        this.all.delete(bind);
        const accountId = bind.account?.principal.accountId;
        if (accountId === undefined) return;
        const set = this.binds.get(accountId);
        set?.delete(bind);
        if (set?.size === 0) this.binds.delete(accountId);
        if (!this.reported.delete(bind)) return;
        this.deps.metrics.smppBinds.dec(bindLabels(bind));
        this.reports.removed(bind.id);
        this.deps.logger.info(
          { account: bind.account?.principal.username, mode: bind.mode, address: bind.address, bind: bind.id },
          "SMPP client unbound",
        );
      },
      ready: (bind) => {
        if (bind.account) this.pump(bind.account.principal.accountId);
      },
      warn: (message, details) => this.deps.logger.warn(details, message),
    };
  }

  async start(): Promise<void> {
    const { smppServer: settings, host } = this.deps.config;
    const onSocket = (socket: net.Socket, tls: boolean) => {
      if (this.stopping) {
        socket.destroy();
        return;
      }
      this.all.add(new Bind(this.reports.nextId(), socket, this.host, tls));
    };
    if (settings.port !== 0) {
      const server = net.createServer((socket) => onSocket(socket, false));
      this.ports.port = await listen(server, settings.port === "auto" ? 0 : settings.port, host);
      this.servers.push(server);
    }
    if (settings.tlsPort !== 0) {
      const server = tls.createServer(
        { cert: fs.readFileSync(settings.tlsCertFile!), key: fs.readFileSync(settings.tlsKeyFile!) },
        (socket) => onSocket(socket, true),
      );
      // A client that fails the handshake (plain SMPP on the TLS port, a certificate it refuses) is just closed.
      server.on("tlsClientError", (error, socket) => {
        this.deps.logger.debug({ err: error, address: socket.remoteAddress }, "SMPP TLS handshake failed");
      });
      this.ports.tlsPort = await listen(server, settings.tlsPort === "auto" ? 0 : settings.tlsPort, host);
      this.servers.push(server);
    }
    this.unsubscribe.push(
      this.deps.store.signals.listen(WEBHOOKS_QUEUED, () => this.pumpAll()),
      this.deps.store.signals.listen(SMPP_BIND_DISCONNECT, (id) => void this.disconnect(id)),
    );
    this.poller = setInterval(() => {
      this.pumpAll();
      void this.disconnectRequested();
      void this.checkAccounts();
    }, POLL_MS);
    this.poller.unref();
    this.reporter = setInterval(() => void this.report(), BIND_REPORT_MS);
    this.reporter.unref();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    for (const unsubscribe of this.unsubscribe.splice(0)) unsubscribe();
    clearInterval(this.poller);
    clearInterval(this.reporter);
    await Promise.all([...this.all].map((bind) => bind.unbind()));
    await Promise.all(this.servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    this.submitter.close();
    await this.reports
      .clear()
      .catch((error: unknown) => this.deps.logger.warn({ err: error }, "smpp_binds not cleared"));
  }

  /** The binds of this process (the operator API lists every process's: registry.ts). */
  list(): BindView[] {
    const views: BindView[] = [];
    for (const bind of this.reported) {
      views.push({
        id: bind.id,
        username: bind.account!.principal.username,
        mode: bind.mode ?? "",
        address: bind.address,
        since: new Date(bind.since).toISOString(),
        submits: bind.submits,
        submitsPerSecondLimit: bind.account!.submitsPerSecond,
        outstanding: bind.outstanding,
        buffered: bind.buffered,
      });
    }
    return views.sort((a, b) => a.since.localeCompare(b.since) || a.id.localeCompare(b.id));
  }

  /** Unbinds one bind of this process by id; false when it holds none by that id. */
  async disconnect(id: string): Promise<boolean> {
    const bind = [...this.all].find((b) => b.id === id);
    if (!bind) return false;
    this.deps.logger.info(
      { bind: id, account: bind.account?.principal.username },
      "SMPP bind disconnected by the operator",
    );
    await bind.unbind();
    return true;
  }

  /** Disconnects asked for by a process that could not signal this one (a CLI on SQLite). */
  private async disconnectRequested(): Promise<void> {
    if (this.reported.size === 0 || this.stopping) return;
    try {
      for (const id of await this.reports.disconnectRequests()) void this.disconnect(id);
    } catch (error) {
      this.deps.logger.debug({ err: error }, "SMPP disconnect requests not read");
    }
  }

  /**
   * Follows the operator's changes to the bound accounts: a new submits-per-second limit applies
   * to open binds; binds of an account blocked, deactivated or denied SMPP access are unbound
   * (their submits meanwhile are refused: account_inactive, ESME_RPROHIBITED).
   */
  private async checkAccounts(): Promise<void> {
    const ids = [...this.binds.keys()];
    if (ids.length === 0 || this.stopping) return;
    let rows: Array<{ id: number; status: Principal["status"]; smpp: number | null; perSecond: number | null }>;
    try {
      const db = this.deps.store.db;
      const [statuses, access] = await Promise.all([
        accountStatuses(db, ids),
        db
          .selectFrom("smpp_accounts")
          .select(["account_id", "submits_per_second"])
          .where("account_id", "in", ids)
          .execute(),
      ]);
      const perSecond = new Map(access.map((row) => [Number(row.account_id), row.submits_per_second]));
      rows = statuses.map((row) => ({
        id: row.id,
        status: row.status,
        smpp: perSecond.has(Number(row.id)) ? Number(row.id) : null,
        perSecond: perSecond.get(Number(row.id)) ?? null,
      }));
    } catch (error) {
      this.deps.logger.debug({ err: error }, "SMPP accounts not checked");
      return;
    }
    const current = new Map(rows.map((row) => [Number(row.id), row]));
    for (const accountId of ids) {
      const row = current.get(accountId);
      const usable = row?.status === "active" && row.smpp !== null;
      for (const bind of this.binds.get(accountId) ?? []) {
        if (!bind.account || !bind.isBound) continue;
        if (usable) {
          if (bind.account.submitsPerSecond !== row.perSecond) {
            bind.account = { ...bind.account, submitsPerSecond: row.perSecond ?? 0 };
          }
          continue;
        }
        if (row) bind.account = { ...bind.account, principal: { ...bind.account.principal, status: row.status } };
        this.deps.logger.info(
          { bind: bind.id, account: bind.account.principal.username, status: row?.status ?? "removed" },
          row?.smpp === null ? "SMPP access removed; unbinding" : "SMPP account no longer active; unbinding",
        );
        void bind.unbind();
      }
    }
  }

  private async report(): Promise<void> {
    if (this.stopping) return;
    try {
      await this.reports.refresh([...this.reported].map(reportOf));
    } catch (error) {
      this.deps.logger.debug({ err: error }, "smpp_binds not refreshed");
    }
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
    const [settings, stored] = await Promise.all([
      smppSettingsOf(db, principal.accountId),
      storedAccountRoutes(db, principal.accountId),
    ]);
    if (!settings || stored === undefined || !addressAllowed(settings.allowed_ips, bind.address)) return refused;
    if (principal.status !== "active") return { status: STATUS.ESME_RBINDFAIL };
    const set = this.binds.get(principal.accountId) ?? new Set<Bind>();
    if (settings.max_binds > 0 && set.size >= settings.max_binds) return { status: STATUS.ESME_RBINDFAIL };
    set.add(bind);
    this.binds.set(principal.accountId, set);
    const routes = stored.split(",").map((r) => r.trim().toUpperCase());
    return {
      status: STATUS.ESME_ROK,
      account: {
        principal,
        defaultRoute: ROUTE_ORDER.find((code) => routes.includes(code)) ?? "T",
        submitsPerSecond: settings.submits_per_second,
      },
    };
  }

  private async submit(bind: Bind, command: SubmitCommand, body: Buffer): Promise<SubmitResult> {
    const result = await this.submitBody(bind, command, body);
    const label = { [STATUS.ESME_ROK]: "accepted", [STATUS.ESME_RTHROTTLED]: "throttled" }[result.status] ?? "refused";
    this.deps.metrics.smppSubmits.inc({ account: bind.account!.principal.username, result: label });
    return result;
  }

  private async submitBody(bind: Bind, command: SubmitCommand, body: Buffer): Promise<SubmitResult> {
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
    return this.submitter.submit(bind, fields, command === "submit_multi");
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
      .select(["id", "retry_at"])
      .where("account_id", "=", accountId)
      .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", now)]))
      .orderBy("id")
      .limit(free + this.sending.size)
      .execute();
    const ids: number[] = [];
    for (const row of due) {
      const id = Number(row.id);
      if (this.sending.has(id)) continue;
      // A row the client refused or left unanswered goes again before anything after it.
      if (row.retry_at !== null && row.retry_at > now) break;
      ids.push(id);
      if (ids.length === free) break;
    }
    if (ids.length === 0) return;
    const claimed = (await this.write({ op: "claim", ids, now, leaseUntil: now + this.leaseMs })) ?? [];
    let turn = 0;
    for (const row of claimed) {
      const id = row.id;
      let bind: Bind | undefined;
      for (let i = 0; i < receivers.length && !bind; i++) {
        const candidate = receivers[(turn + i) % receivers.length]!;
        if (candidate.freeSlots > 0) bind = candidate;
      }
      turn++;
      if (!bind) {
        await this.write({ op: "release", id });
        continue;
      }
      const payload = JSON.parse(row.payload) as OutboxPayload;
      this.sending.add(id);
      void bind
        .deliver(deliverSmOf(payload))
        .then((outcome) => this.settle(id, payload.kind, outcome))
        .catch((error: unknown) => this.deps.logger.warn({ err: error }, "SMPP deliver_sm failed"))
        .finally(() => this.sending.delete(id));
    }
  }

  /**
   * ESME_ROK: the client has it, the row goes. Refused or unanswered: it is tried again after
   * SMPP_SERVER_DELIVER_RETRY_MS, and nothing after it goes first. The connection gone before the answer: it is
   * free at once for the account's next receiver bind.
   */
  private async settle(id: number, kind: OutboxPayload["kind"], outcome: RequestOutcome): Promise<void> {
    const result = outcome === STATUS.ESME_ROK ? "ok" : typeof outcome === "number" ? "refused" : outcome;
    this.deps.metrics.smppDeliveries.inc({ kind, result });
    if (outcome === STATUS.ESME_ROK) {
      await this.remove(id);
      return;
    }
    const retryAt =
      outcome === "closed" ? null : this.deps.clock.now().getTime() + this.deps.config.smppServer.deliverRetryMs;
    await this.write({ op: "retry", id, retryAt });
  }

  /** Deletes a row the client took, with the others taken in this turn: one statement, not one each. */
  private remove(id: number): Promise<void> {
    this.taken.push(id);
    this.deleting ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      const ids = this.taken;
      this.taken = [];
      this.deleting = undefined;
      return this.write({ op: "remove", ids }).then(() => undefined);
    });
    return this.deleting;
  }
}

function bindLabels(bind: Bind): { account: string; mode: string } {
  return { account: bind.account?.principal.username ?? "", mode: bind.mode ?? "" };
}

function reportOf(bind: Bind): ReportedBind {
  return {
    id: bind.id,
    accountId: bind.account!.principal.accountId,
    mode: bind.mode!,
    address: bind.address,
    port: bind.port,
    tls: bind.tls,
    boundAt: bind.since,
    submits: bind.submits,
  };
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
