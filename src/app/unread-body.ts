// A request answered before its body was read to the end (a multipart send refused at its
// eleventh attachment, a CSV upload refused at its first bad line) leaves the rest of the body
// in the connection: unless something reads it, the next request on that keep-alive
// connection is never parsed and waits until the socket times out. Node drains a body nobody
// touched, but not one a parser (busboy, csv-parse) started on and let go of.
import type { IncomingMessage } from "node:http";
import type { FastifyInstance } from "fastify";

/**
 * What is still read and dropped after the answer. A client that goes on sending past it is
 * cut off: keeping its connection is not worth reading an unbounded body for nothing.
 */
export const MAX_DRAINED_BYTES = 64 * 1024 * 1024;

export function drainUnreadBodies(app: FastifyInstance): void {
  app.addHook("onSend", (request, reply, payload, done) => {
    const raw = request.raw;
    if (raw.readableEnded || raw.destroyed) return done(null, payload);
    const declared = Number(raw.headers["content-length"]);
    if (Number.isFinite(declared) && declared > MAX_DRAINED_BYTES) {
      reply.header("connection", "close");
    } else {
      // Fastify closes the connection after refusing a body it would not parse (too large): the
      // rest of the body then meets a closed socket, whose reset can destroy the answer before
      // the client reads it. Read the rest instead, and keep the connection.
      reply.removeHeader("connection");
    }
    discardRest(raw);
    done(null, payload);
  });
}

function discardRest(raw: IncomingMessage): void {
  raw.unpipe();
  let drained = 0;
  raw.on("data", (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > MAX_DRAINED_BYTES) raw.socket.destroy();
  });
  // A parser that gave up may have left an error behind; the answer is already decided.
  raw.on("error", () => {});
  raw.resume();
}
