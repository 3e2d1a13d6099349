// How many HTTP connections the port holds: at most HTTP_CONNECTIONS_PER_ADDRESS from one client
// address and HTTP_CONNECTIONS_MAX from all (server.maxConnections). One past a limit is closed
// as it arrives, with nothing sent; a close frees the place. Refusals are logged at most every
// 10 s with their count, as the SMPP server's unbound connections are (one PerAddressLimit).
import type { Server } from "node:http";
import type { Socket } from "node:net";
import type { Logger } from "pino";
import { PerAddressLimit } from "../base/runtime/per-address-limit.js";

export interface ConnectionLimits {
  perAddress: number;
  max: number;
}

export function limitConnections(server: Server, limits: ConnectionLimits, logger: Pick<Logger, "warn">): void {
  const perAddress = new PerAddressLimit(limits.perAddress);
  const refusedOne = (reason: string, address: string | undefined, fromAddress?: number) => {
    const refused = perAddress.refused();
    if (refused === undefined) return;
    logger.warn(
      { address: address ?? null, ...(fromAddress === undefined ? {} : { fromAddress }), refused },
      `HTTP connections refused: ${reason}`,
    );
  };
  // Node closes a connection past maxConnections itself, and says so with "drop".
  server.maxConnections = limits.max;
  server.on("drop", (data?: { remoteAddress?: string }) =>
    refusedOne(`more than ${limits.max} open (HTTP_CONNECTIONS_MAX)`, data?.remoteAddress),
  );
  server.on("connection", (socket: Socket) => {
    // A connection reset before it was accepted has no address, and is gone already.
    const address = socket.remoteAddress;
    if (address === undefined) return;
    if (!perAddress.admits(address)) {
      refusedOne(
        `more than ${limits.perAddress} open from one address (HTTP_CONNECTIONS_PER_ADDRESS)`,
        address,
        perAddress.openFrom(address),
      );
      socket.destroy();
      return;
    }
    perAddress.opened(address);
    socket.once("close", () => perAddress.closed(address));
  });
}
