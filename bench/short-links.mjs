// The tracked short links' redirect rate (issue 40, item 6): a `switchboard start` with
// SHORT_LINK_BASE, --links short links written straight into its database, then autocannon for
// --seconds each on GET /l/<code> with (1) known codes: 302, the click written with its
// link_clicked event (no URL set: none), (2) unknown well-formed codes, each new: one read, 404,
// (3) malformed codes: 404 without reading. Prints requests a second, latency percentiles and the
// answers' statuses, and checks that every 302 was recorded as a click.
// Usage: npm run build; node bench/short-links.mjs [--links 10000] [--seconds 10] [--connections 20]
//        [--database postgres://postgres@127.0.0.1:5432/test] (a schema of its own, dropped after)
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { sql } from "kysely";
import { openStore } from "../dist/base/store/store.js";
import { freshSqliteUrl, machine, startServer } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    links: { type: "string", default: "10000" },
    seconds: { type: "string", default: "10" },
    connections: { type: "string", default: "20" },
    port: { type: "string", default: "18097" },
    database: { type: "string" },
  },
});
const port = values.port;
const base = `http://127.0.0.1:${port}`;
const schema = `sb_links_${process.pid}`;
let target;
let databaseUrl;
let cleanup;
if (values.database) {
  const admin = await openStore({ engine: "postgres", url: values.database });
  await sql.raw(`create schema ${schema}`).execute(admin.db);
  await admin.close();
  const url = new URL(values.database);
  url.searchParams.set("options", `-c search_path=${schema}`);
  databaseUrl = url.toString();
  target = { engine: "postgres", url: values.database };
  cleanup = async () => {
    const admin = await openStore({ engine: "postgres", url: values.database });
    await sql.raw(`drop schema ${schema} cascade`).execute(admin.db);
    await admin.close();
  };
} else {
  const sqlite = freshSqliteUrl();
  databaseUrl = sqlite.url;
  target = { engine: "sqlite", file: sqlite.url.slice("sqlite:".length) };
  cleanup = async () => sqlite.cleanup();
}
const env = { DATABASE_URL: databaseUrl, PORT: port, LOG_LEVEL: "warn", SHORT_LINK_BASE: `${base}/l` };
const server = await startServer("start", env);

const store = await openStore(target, target.engine === "postgres" ? { pgSchema: schema } : {});
const now = Date.now();
const codes = [];
for (let i = 0; i < Number(values.links); i++) codes.push(randomBytes(9).toString("base64url"));
for (let i = 0; i < codes.length; i += 500) {
  await store.db
    .insertInto("short_links")
    .values(
      codes.slice(i, i + 500).map((code, j) => ({
        code,
        message_id: `q${String(i + j).padStart(25, "0")}`,
        account_id: 1,
        url: `https://shop.example.in/o/${i + j}`,
        created_at: now,
        expires_at: now + 86_400_000,
      })),
    )
    .execute();
}

const pick = () => codes[Math.floor(Math.random() * codes.length)];
const runs = [
  ["known codes (302, click written)", () => `/l/${pick()}`],
  ["unknown well-formed codes (404, one read each)", () => `/l/${randomBytes(9).toString("base64url")}`],
  ["malformed codes (404, no read)", () => `/l/${randomBytes(4).toString("hex")}`],
];
console.log(
  `${machine()}; ${store.engine}; ${codes.length.toLocaleString("en")} links; ${values.connections} connections, ${values.seconds} s each`,
);
for (const [name, next] of runs) {
  const result = await autocannon({
    url: base,
    connections: Number(values.connections),
    duration: Number(values.seconds),
    requests: [{ method: "GET", setupRequest: (request) => ({ ...request, path: next() }) }],
  });
  const statuses = Object.entries(result.statusCodeStats ?? {})
    .map(([code, { count }]) => `${code}: ${count}`)
    .join(", ");
  console.log(
    `${name}: ${Math.round(result.requests.average)} req/s; latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms; ${statuses}; errors ${result.errors}`,
  );
}
const redirected = await store.db.selectFrom("link_clicks").select(sql`count(*)`.as("n")).executeTakeFirstOrThrow();
console.log(`clicks recorded: ${Number(redirected.n)}`);
await store.close();
server.child.kill("SIGTERM");
await new Promise((resolve) => server.child.on("exit", resolve));
await cleanup();
