// A TCP proxy on a port of its own to a target: cut() closes every connection and refuses new
// ones (the target's outage, as the process sees it: ECONNREFUSED), restore() listens again on
// the same port. For outages of a server the tests share (PostgreSQL) or must keep (an SMSC).
import net from "node:net";

export class TcpProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<number> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.targetPort, this.targetHost);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on("close", () => this.sockets.delete(socket));
        socket.on("error", () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.port, "127.0.0.1", () => resolve());
    });
    this.server = server;
    this.port = (server.address() as net.AddressInfo).port;
    return this.port;
  }

  /** Every connection closed at once, and new ones refused. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    const closed = server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  /** Listening again, on the same port. */
  restore(): Promise<number> {
    return this.start();
  }
}
