// undici's pools and agents for the gateway's own requests (HTTP carriers, voice, WhatsApp,
// webhooks), made at their first request: undici is loaded only by a thread that sends over
// HTTP, not by every thread at start (about 5 MB of each thread's heap; issue 43).
import type { Agent, Pool } from "undici";

/** A pool or agent made when first asked for. */
export interface Outbound<T> {
  /** The pool or agent, made (and undici loaded) the first time. */
  get(): Promise<T>;
  /** Closes it if it was made; after this, `get` refuses. */
  close(): Promise<void>;
}

function outbound<T extends { close(): Promise<void> }>(make: () => Promise<T>): Outbound<T> {
  let made: Promise<T> | undefined;
  let closed = false;
  return {
    get() {
      if (closed) return Promise.reject(new Error("the connection pool is closed"));
      made ??= make();
      return made;
    },
    async close() {
      closed = true;
      if (made) await (await made).close();
    },
  };
}

/** A keep-alive Pool to one origin. */
export function outboundPool(origin: string, options: Pool.Options): Outbound<Pool> {
  return outbound(async () => {
    const { Pool } = await import("undici");
    return new Pool(origin, options);
  });
}

/** An Agent: pools to any origin. */
export function outboundAgent(options: Agent.Options): Outbound<Agent> {
  return outbound(async () => {
    const { Agent } = await import("undici");
    return new Agent(options);
  });
}
