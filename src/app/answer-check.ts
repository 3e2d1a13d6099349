// A test aid: a response schema writes only the fields it lists, as the types it names, in its
// own order (required properties before optional ones), so an answer whose schema is behind its
// handler would reach the client changed (a field dropped, a fraction cut to an integer, null
// written as "", fields moved). With this on (the test gateways), an answer whose bytes differ
// from JSON.stringify of what the handler answered fails with 500 and says what changed; the
// whole suite then checks every schema.
import type { FastifyInstance, FastifyReply } from "fastify";

const plain = new WeakMap<FastifyReply, string>();

export function failChangedAnswers(app: FastifyInstance): void {
  app.addHook("preSerialization", async (_request, reply, payload) => {
    plain.set(reply, JSON.stringify(payload));
    return payload;
  });
  app.addHook("onSend", async (request, reply, payload) => {
    const meant = plain.get(reply);
    if (meant === undefined || typeof payload !== "string" || payload === meant) return payload;
    request.log.error({ url: request.url, written: payload, meant }, "response schema changed the answer");
    reply.code(500);
    return JSON.stringify({
      message: `The response schema of ${request.method} ${request.routeOptions.url} changed the answer.`,
      written: payload,
      meant,
    });
  });
}
