// What a request answers when HTTP_REQUEST_TIMEOUT_SECONDS cuts it off before its body has
// arrived. Node answers that on the socket (answerClientError), outside the route; a route that
// reads a long body (a CSV upload) names here, while it reads, the refusal its client should get
// instead of the bare "did not arrive in time" (that nothing of the file was added).
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import type { GatewayError } from "../core/errors.js";

/** A route's own answer to its request timing out, with the request's path (the family's dialect). */
export interface TimeoutRefusal {
  error: GatewayError;
  path: string;
}

const refusals = new WeakMap<Socket, TimeoutRefusal>();

/** While the body of `raw` is read, a timeout answers `error`; the function returned ends that. */
export function refuseTimeoutWith(raw: IncomingMessage, error: GatewayError): () => void {
  const socket = raw.socket;
  const refusal = { error, path: raw.url ?? "" };
  refusals.set(socket, refusal);
  return () => {
    if (refusals.get(socket) === refusal) refusals.delete(socket);
  };
}

/** The refusal a route named for the request the socket is reading, if any. */
export function timeoutRefusalOf(socket: Socket): TimeoutRefusal | undefined {
  return refusals.get(socket);
}
