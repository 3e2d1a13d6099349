// The SMPP 3.4 server account holders bind to as ESMEs (issue 21): plain TCP and optionally TLS
// listeners, the binds of each account with their limits (reported to smpp_binds for the
// operator, registry.ts), and when to pump the deliver_sm each account is owed (deliver-pump.ts).
import fs from "node:fs";
import net from "node:net";
import tls from "node:tls";
import { isGatewayError } from "../../base/core/errors.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { accountStatuses, storedAccountRoutes } from "../../domain/accounts/index.js";
import type { Authenticator, Principal } from "../../domain/auth/index.js";
import type { AcceptService } from "../../domain/messages/index.js";
import type { RefusalRecorder } from "../../domain/refusals/index.js";
import { WEBHOOKS_QUEUED } from "../../domain/webhooks/outbox.js";
import type { SmsPolicy } from "../sms/index.js";
import { AbandonedReceipts } from "./abandoned.js";
import { Bind } from "./bind.js";
import type { BindHost } from "./bind-host.js";
import { DeliverPump } from "./deliver-pump.js";
import { localOutboxWriter, type OutboxWriter } from "./outbox-writes.js";
import { BIND_REPORT_MS, BindReports, type ReportedBind, SMPP_BIND_DISCONNECT } from "./registry.js";
import { answerRequest, type RequestDeps } from "./requests.js";
import { addressAllowed, smppSettingsOf } from "./settings.js";
import { STATUS } from "./status.js";
import { type BoundAccount, type Submitter, submitterOf } from "./submit.js";
import { UnboundConnections } from "./unbound.js";

export interface SmppServerDeps extends Runtime {
  authenticator: Authenticator;
  acceptor: AcceptService;
  smsPolicy: SmsPolicy;
  /** Where the pump's writes to smpp_outbox go (default: this store; in `start` on SQLite, the worker thread). */
  outboxWriter?: OutboxWriter;
  /** The log of refused submits (refusal-record.ts). */
  refusals?: RefusalRecorder;
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
  private readonly unbound: UnboundConnections<Bind>;
  private readonly unsubscribe: Array<() => void> = [];
  private poller: NodeJS.Timeout | undefined;
  private reporter: NodeJS.Timeout | undefined;
  private stopping = false;
  private readonly host: BindHost<Bind>;
  private readonly reports: BindReports;
  private readonly deliveries: DeliverPump;
  private readonly abandoned: AbandonedReceipts;
  ports: { port?: number; tlsPort?: number } = {};

  constructor(private readonly deps: SmppServerDeps) {
    this.reports = new BindReports(deps.store, deps.clock, deps.logger);
    const writeOutbox = deps.outboxWriter ?? localOutboxWriter(deps.store);
    this.deliveries = new DeliverPump(
      deps,
      writeOutbox,
      (accountId) => this.binds.get(accountId) ?? [],
      () => this.stopping,
    );
    this.abandoned = new AbandonedReceipts(writeOutbox, deps, (accountId) => this.deliveries.pump(accountId));
    this.submitter = submitterOf(deps, (message, why) => this.abandoned.add(message, why));
    const requests: RequestDeps = {
      db: deps.store.db,
      store: deps.store,
      clock: deps.clock,
      pump: (accountId) => this.deliveries.pump(accountId),
      held: (accountId, id) => this.submitter.holds(accountId, id),
      submitter: this.submitter,
      metrics: deps.metrics,
      refusals: deps.refusals,
    };
    this.unbound = new UnboundConnections(
      { perAddress: deps.config.smppServer.unboundPerAddress, max: deps.config.smppServer.unboundMax },
      (message, details) => deps.logger.warn(details, message),
    );
    this.host = {
      window: deps.config.smppServer.window,
      bindTimeoutMs: deps.config.smppServer.bindTimeoutSeconds * 1000,
      outputMaxBytes: deps.config.smppServer.outputMaxBytes,
      enquireLinkMs: deps.config.smppServer.enquireLinkSeconds * 1000,
      idleMs: deps.config.smppServer.idleSeconds * 1000,
      responseTimeoutMs: deps.config.smppServer.responseTimeoutMs,
      systemId: "Switchboard",
      authenticate: (bind, systemId, password) => this.authenticate(bind, systemId, password),
      request: (bind, command, body) => answerRequest(requests, bind, command, body),
      bound: (bind) => {
        this.unbound.remove(bind);
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
        this.unbound.remove(bind);
        this.submitter.release(bind.id);
        const accountId = bind.account?.principal.accountId;
        if (accountId === undefined) return;
        const set = this.binds.get(accountId);
        set?.delete(bind);
        if (set?.size === 0) this.binds.delete(accountId);
        // Bound, or refused or closed after its place was taken (authenticate): its row goes.
        if (!this.reported.delete(bind)) return this.reports.removed(bind.id);
        this.deps.metrics.smppBinds.dec(bindLabels(bind));
        this.reports.removed(bind.id);
        this.deps.logger.info(
          { account: bind.account?.principal.username, mode: bind.mode, address: bind.address, bind: bind.id },
          "SMPP client unbound",
        );
      },
      ready: (bind) => {
        if (bind.account) this.deliveries.pump(bind.account.principal.accountId);
      },
      warn: (message, details) => this.deps.logger.warn(details, message),
    };
  }

  async start(): Promise<void> {
    const { smppServer: settings, host } = this.deps.config;
    const onSocket = (socket: net.Socket, tls: boolean) => {
      if (this.stopping || !this.unbound.admits(socket.remoteAddress ?? "")) {
        socket.destroy();
        return;
      }
      const bind = new Bind(this.reports.nextId(), socket, this.host, tls);
      this.all.add(bind);
      this.unbound.add(bind);
    };
    if (settings.port !== 0) {
      const server = net.createServer((socket) => onSocket(socket, false));
      this.ports.port = await listen(server, settings.port === "auto" ? 0 : settings.port, host);
      this.servers.push(server);
    }
    if (settings.tlsPort !== 0) {
      const server = tls.createServer(
        {
          cert: fs.readFileSync(settings.tlsCertFile!),
          key: fs.readFileSync(settings.tlsKeyFile!),
          // The handshake comes before the bind, within the same time.
          handshakeTimeout: settings.bindTimeoutSeconds * 1000,
        },
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
    await this.abandoned.settled();
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
    const db = this.deps.store.db;
    let principal: Awaited<ReturnType<Authenticator["bySmppPassword"]>>;
    // The account's SMPP settings, read once for its password hash and the checks below.
    let settings: Awaited<ReturnType<typeof smppSettingsOf>>;
    try {
      principal = await this.deps.authenticator.bySmppPassword(systemId, password, bind.address, async (accountId) => {
        settings = await smppSettingsOf(db, accountId);
        return settings?.password_hash ?? null;
      });
    } catch (error) {
      if (isGatewayError(error) && (error.code === "unauthorized" || error.code === "account_locked")) {
        return refused;
      }
      throw error;
    }
    const stored = await storedAccountRoutes(db, principal.accountId);
    if (!settings || stored === undefined || !addressAllowed(settings.allowed_ips, bind.address)) return refused;
    if (principal.status !== "active") return { status: STATUS.ESME_RBINDFAIL };
    const set = this.binds.get(principal.accountId) ?? new Set<Bind>();
    if (settings.max_binds > 0 && set.size >= settings.max_binds) return { status: STATUS.ESME_RBINDFAIL };
    set.add(bind);
    this.binds.set(principal.accountId, set);
    // The limit is the account's over every process: counted on smpp_binds (registry.ts).
    const claimed = this.reports.claim({ ...reportOf(bind), accountId: principal.accountId }, settings.max_binds);
    if (!(await claimed.catch(() => null))) {
      set.delete(bind);
      if (set.size === 0 && this.binds.get(principal.accountId) === set) this.binds.delete(principal.accountId);
      // A failed count throws (bindAs logs it and answers ESME_RBINDFAIL too).
      if ((await claimed) === false) return { status: STATUS.ESME_RBINDFAIL };
    }
    const routes = stored.split(",").map((r) => r.trim().toUpperCase());
    return {
      status: STATUS.ESME_ROK,
      account: {
        principal,
        systemId,
        defaultRoute: ROUTE_ORDER.find((code) => routes.includes(code)) ?? "T",
        submitsPerSecond: settings.submits_per_second,
      },
    };
  }

  private pumpAll(): void {
    for (const accountId of this.binds.keys()) this.deliveries.pump(accountId);
  }
}

function bindLabels(bind: Bind): { account_id: string; mode: string } {
  return { account_id: String(bind.account?.principal.accountId ?? ""), mode: bind.mode ?? "" };
}

function reportOf(bind: Bind): ReportedBind {
  return {
    id: bind.id,
    accountId: bind.account?.principal.accountId ?? 0,
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
