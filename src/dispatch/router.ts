// Picks the connector for a message. Today: the first connector serving the message's
// channel; route- and prefix-based rules with failover arrive with the carrier connectors.
import { GatewayError } from "../core/errors.js";
import type { MessageRow } from "../store/schema.js";
import type { Connector } from "./connector.js";

export class Router {
  private readonly byChannel = new Map<string, Connector>();

  constructor(readonly connectors: readonly Connector[]) {
    for (const connector of connectors) {
      if (!this.byChannel.has(connector.channel)) this.byChannel.set(connector.channel, connector);
    }
  }

  pick(message: Pick<MessageRow, "channel" | "route" | "recipient">): Connector {
    const connector = this.byChannel.get(message.channel);
    if (!connector) throw new GatewayError("internal_error", `No connector serves the ${message.channel} channel.`);
    return connector;
  }
}
