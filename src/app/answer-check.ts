// A test aid: a response schema writes only the fields it lists, as the types it names, so an
// answer whose schema is behind its handler would reach the client changed (a field dropped, a
// fraction cut to an integer, null written as ""). With this on (the test gateways), such an
// answer fails with 500 and says what changed; the whole suite then checks every schema.
import { isDeepStrictEqual } from "node:util";
import type { FastifyInstance, FastifyReply } from "fastify";

const plain = new WeakMap<FastifyReply, string>();

export function failChangedAnswers(app: FastifyInstance): void {
  app.addHook("preSerialization", async (_request, reply, payload) => {
    plain.set(reply, JSON.stringify(payload));
    return payload;
  });
  app.addHook("onSend", async (request, reply, payload) => {
    const before = plain.get(reply);
    if (before === undefined || typeof payload !== "string") return payload;
    const written = JSON.parse(payload) as unknown;
    const meant = JSON.parse(before) as unknown;
    if (isDeepStrictEqual(written, meant)) return payload;
    request.log.error({ url: request.url, written, meant }, "response schema changed the answer");
    reply.code(500);
    return JSON.stringify({
      message: `The response schema of ${request.method} ${request.routeOptions.url} changed the answer.`,
      written,
      meant,
    });
  });
}
