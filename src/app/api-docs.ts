// Swagger UI at /docs, in a scope of its own where @fastify/helmet sends the security headers
// of a page (the API's answers outside it carry only nosniff, set in server.ts).
import helmet from "@fastify/helmet";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

export const DOCS_PREFIX = "/docs";

/**
 * Swagger UI's own files and nothing else: no inline script (its index.html loads three files),
 * inline styles because it sets style attributes as it renders, data: images for its icons.
 * Never framed; no upgrade-insecure-requests, which would break the page on a plain-http
 * gateway (127.0.0.1, a private network).
 */
const DOCS_POLICY = {
  useDefaults: false,
  directives: {
    defaultSrc: ["'self'"],
    baseUri: ["'self'"],
    connectSrc: ["'self'"],
    fontSrc: ["'self'", "data:"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
    imgSrc: ["'self'", "data:"],
    objectSrc: ["'none'"],
    scriptSrc: ["'self'"],
    scriptSrcAttr: ["'none'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
  },
};

/**
 * @fastify/swagger-ui answers /docs/static/index.html with a redirect to req.url with
 * `/static/index.html` replaced at its very end, so `?x`, a trailing slash or other capitals
 * kept the URL as it was: a redirect to itself, forever. The page is /docs/ whatever follows.
 */
async function indexRedirect(request: FastifyRequest, reply: FastifyReply) {
  if (request.routeOptions.url === `${DOCS_PREFIX}/static/index.html`) {
    return reply.redirect(`${DOCS_PREFIX}/`);
  }
}

export async function registerApiDocs(app: FastifyInstance): Promise<void> {
  await app.register(async (docs) => {
    await docs.register(helmet, {
      contentSecurityPolicy: DOCS_POLICY,
      frameguard: { action: "deny" },
      referrerPolicy: { policy: "no-referrer" },
      // Whether the gateway is reached over https is the operator's proxy's business, not the page's.
      strictTransportSecurity: false,
    });
    await docs.register(swaggerUi, {
      routePrefix: DOCS_PREFIX,
      staticCSP: false,
      uiHooks: { onRequest: indexRedirect },
    });
  });
}
