// One request to the aggregator over the pool, with a deadline, reporting whether the request
// was handed to a connected socket. Only a request that never was can be resent safely: once
// written, the aggregator may have sent the SMS even if no answer ever comes back.
import type { Dispatcher } from "undici";
import type { RenderedRequest } from "./request.js";

/** Answers are read up to this size; an SMS API answers in far less. */
const MAX_ANSWER_BYTES = 64 * 1024;

export type Exchange =
  | { kind: "answer"; status: number; text: string }
  /** `written`: the request was handed to a connected socket (it may have reached the aggregator). */
  | { kind: "error"; error: Error & { code?: string }; written: boolean };

export class DeadlineError extends Error {
  override readonly name = "DeadlineError";
  readonly code = "deadline";
}

export function exchange(pool: Dispatcher, request: RenderedRequest, timeoutMs: number): Promise<Exchange> {
  return new Promise((resolve) => {
    let controller: Dispatcher.DispatchController | undefined;
    let written = false;
    let expired = false;
    let settled = false;
    let status = 0;
    let size = 0;
    const chunks: Buffer[] = [];
    const finish = (outcome: Exchange) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const deadline = () => new DeadlineError(`no complete answer within ${timeoutMs} ms`);
    const timer = setTimeout(() => {
      expired = true;
      if (controller) controller.abort(deadline());
      // Still waiting for a connection: nothing was written, and onRequestStart aborts it if one comes.
      else finish({ kind: "error", error: deadline(), written: false });
    }, timeoutMs);
    const options: Dispatcher.DispatchOptions = {
      method: request.method,
      path: request.path,
      headers: request.headers,
      body: request.body ?? null,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    };
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(ctrl) {
        controller = ctrl;
        // Aborting here keeps undici from writing the request (client-h1 checks right after).
        if (expired) ctrl.abort(deadline());
        else written = true;
      },
      onResponseStart(_ctrl, statusCode) {
        status = statusCode;
      },
      onResponseData(_ctrl, chunk) {
        size += chunk.length;
        if (size <= MAX_ANSWER_BYTES) chunks.push(chunk);
      },
      onResponseEnd() {
        finish({ kind: "answer", status, text: Buffer.concat(chunks).toString("utf8") });
      },
      onResponseError(_ctrl, error) {
        finish({ kind: "error", error, written });
      },
    };
    try {
      pool.dispatch(options, handler);
    } catch (error) {
      // undici refuses some requests (an invalid header) before queueing them.
      finish({ kind: "error", error: error as Error, written: false });
    }
  });
}
