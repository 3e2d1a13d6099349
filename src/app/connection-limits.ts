// How many HTTP connections the port holds: at most HTTP_CONNECTIONS_PER_ADDRESS from one client
// address and HTTP_CONNECTIONS_MAX from all (server.maxConnections). One past a limit is closed
// as it arrives, with nothing sent; a close frees the place. Refusals are logged at most every
// 10 s with their count, as the SMPP server's unbound connections are (smpp-server/unbound.ts).
import type { Server } from "node:http";
import type { Socket } from "node:net";
import type { Logger } from "pino";

const REFUSAL_LOG_MS = 10_000;

export interface ConnectionLimits {
  perAddress: number;
  max: number;
}

export function limitConnections(server: Server, limits: ConnectionLimits, logger: Pick<Logger, "warn">): void {
  const byAddress = new Map<string, number>();
  let refused = 0;
  let lastLogged = 0;
  const refusedOne = (reason: string, address: string | undefined, fromAddress?: number) => {
    refused++;
    const now = Date.now();
    if (now - lastLogged < REFUSAL_LOG_MS) return;
    logger.warn(
      { address: address ?? null, ...(fromAddress === undefined ? {} : { fromAddress }), refused },
      `HTTP connections refused: ${reason}`,
    );
    refused = 0;
    lastLogged = now;
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
    const fromAddress = byAddress.get(address) ?? 0;
    if (fromAddress >= limits.perAddress) {
      refusedOne(
        `more than ${limits.perAddress} open from one address (HTTP_CONNECTIONS_PER_ADDRESS)`,
        address,
        fromAddress,
      );
      socket.destroy();
      return;
    }
    byAddress.set(address, fromAddress + 1);
    socket.once("close", () => {
      const left = (byAddress.get(address) ?? 1) - 1;
      if (left === 0) byAddress.delete(address);
      else byAddress.set(address, left);
    });
  });
}
