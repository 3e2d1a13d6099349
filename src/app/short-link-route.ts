// The tracked short links' redirect (issue 40, item 6): GET <SHORT_LINK_BASE's path>/<code>
// answers 302 to the message's original link while it lives (SHORT_LINK_DAYS), records the click
// (time, user agent, the address as an HMAC with this installation's secret) and writes the
// link_clicked webhook event in the same transaction. A code that cannot be ours is answered 404
// without reading the database, and a miss is remembered a minute, so guessing costs no storm
// of reads.
import type { FastifyInstance, FastifyReply } from "fastify";
import { BoundedMap } from "../base/core/bounded-map.js";
import { isoUtc } from "../base/core/clock.js";
import { installationSecret } from "../base/store/installation-secrets.js";
import { findShortLink, recordClick, wellFormedCode } from "../domain/messages/index.js";
import { WEBHOOKS_QUEUED } from "../domain/webhooks/outbox.js";
import type { AppContext } from "./context.js";

const MISS_TTL_MS = 60_000;
const MAX_MISSES = 10_000;

function gone(reply: FastifyReply) {
  return reply
    .code(404)
    .header("cache-control", "no-store")
    .type("text/plain; charset=utf-8")
    .send("This link does not exist or has expired.\n");
}

export function registerShortLinkRoute(app: FastifyInstance, ctx: AppContext): void {
  const base = ctx.config.shortLinkBase;
  if (!base) return;
  let secret: Promise<Buffer> | undefined;
  const misses = new BoundedMap<string, number>(MAX_MISSES);
  app.get<{ Params: { code: string } }>(
    `${base.path}/:code`,
    { schema: { hide: true }, config: { public: true }, exposeHeadRoute: false },
    async (request, reply) => {
      const { code } = request.params;
      const now = ctx.clock.now().getTime();
      if (!wellFormedCode(code) || (misses.get(code) ?? 0) > now) return gone(reply);
      const link = await findShortLink(ctx.store.db, code, now);
      if (!link) {
        misses.set(code, now + MISS_TTL_MS);
        return gone(reply);
      }
      secret ??= installationSecret(ctx.store, "short_link_addresses");
      const key = await secret;
      const userAgent = request.headers["user-agent"] ?? null;
      const events = await ctx.store.transaction(async (trx) => {
        await recordClick(
          trx,
          { code, messageId: link.message_id, accountId: link.account_id, at: now, userAgent, address: request.ip },
          key,
        );
        return ctx.webhooks.enqueue(trx, link.account_id, "link_clicked", link.message_id, now, {
          event: "link_clicked",
          message_id: link.message_id,
          url: link.url,
          short_url: `${base.url}/${code}`,
          clicked_at: isoUtc(new Date(now)),
          user_agent: userAgent,
        });
      });
      if (events > 0) await ctx.store.signals.notify(WEBHOOKS_QUEUED).catch(() => undefined);
      return reply
        .code(302)
        .header("cache-control", "no-store")
        .header("referrer-policy", "no-referrer")
        .redirect(link.url);
    },
  );
}
