// The console's files (built by Vite into dist/web) served at `/`. Its pages are routed in
// the browser, so a page's URL opened directly (a bookmark, a reload) is answered with
// index.html, but only outside the paths the APIs use: the first segment of every registered
// route (api, admin, httpapi, docs, metrics, webhooks…) is collected as routes are added, and an
// unknown path under one keeps its family's 404.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Logger } from "pino";

/**
 * The installation's directory: the nearest one above this file that holds package.json, which
 * is the same from src/app/console (tests), dist/app/console and dist/bundle (the built gateway).
 */
function installDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, "package.json"))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
  return dir;
}

/** dist/web, where Vite builds the console. */
export const CONSOLE_DIR = path.join(installDir(), "dist", "web");

/**
 * The headers of the console's files: only its own scripts, styles and API calls, never framed
 * (clickjacking), no Referer that could carry a message id elsewhere.
 */
const PAGE_HEADERS: Record<string, string> = {
  "content-security-policy": [
    "default-src 'self'",
    "base-uri 'self'",
    "connect-src 'self'",
    "font-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "img-src 'self' data: blob:",
    "object-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
  ].join("; "),
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

/** Vite names the files under assets/ by their content: cached for good. The rest is checked each time. */
const IMMUTABLE = /[\\/]assets[\\/]/;

function firstSegment(url: string): string {
  return (url.split("?")[0] ?? "").split("/")[1]?.toLowerCase() ?? "";
}

export interface ConsolePages {
  /** Serves the built console; call once every API route is registered. */
  register(dir?: string): Promise<void>;
  /** Answers an unrouted request with the console's index.html when it is a page of the console. */
  answer(request: FastifyRequest, reply: FastifyReply): boolean;
}

/** Starts collecting the API paths' first segments; call before any route is registered. */
export function consolePages(app: FastifyInstance, logger: Pick<Logger, "warn">): ConsolePages {
  const apiSegments = new Set<string>();
  app.addHook("onRoute", (route) => {
    const segment = firstSegment(route.url);
    if (segment) apiSegments.add(segment);
  });
  let index: string | undefined;

  return {
    async register(dir = CONSOLE_DIR) {
      if (!existsSync(`${dir}/index.html`)) {
        logger.warn({ dir }, "the console is not built (npm run build): / answers 404");
        return;
      }
      index = readFileSync(`${dir}/index.html`, "utf8");
      await app.register(fastifyStatic, {
        root: dir,
        // One route per built file (registered now), never a catch-all that would shadow an API path.
        wildcard: false,
        decorateReply: false,
        schemaHide: true,
        setHeaders: (reply, path) => {
          reply.headers(PAGE_HEADERS);
          reply.header("cache-control", IMMUTABLE.test(path) ? "public, max-age=31536000, immutable" : "no-cache");
        },
      });
    },

    answer(request, reply) {
      if (index === undefined || (request.method !== "GET" && request.method !== "HEAD")) return false;
      if (!request.headers.accept?.includes("text/html")) return false;
      if (apiSegments.has(firstSegment(request.url))) return false;
      void reply.code(200).headers(PAGE_HEADERS).header("cache-control", "no-cache").type("text/html").send(index);
      return true;
    },
  };
}
