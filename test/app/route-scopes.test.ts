// The one table of which scope an API key needs for each route (app/route-scopes.ts): every
// keyed route of every family has a row (a new route without one fails here), every row names a
// route the server has, and docs/api.md's table (Key scopes) says the same as the code.
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { ROUTE_SCOPES } from "../../src/app/route-scopes.js";
import { describeEachEngine } from "../helpers/engines.js";
import { useTestGateway } from "../helpers/gateway.js";

/** The table's rows, one per method: `METHOD url` → scope. */
function tableRows(): Map<string, string> {
  const rows = new Map<string, string>();
  for (const [scope, routes] of Object.entries(ROUTE_SCOPES)) {
    for (const route of routes) {
      const [methods, url] = route.split(" ") as [string, string];
      for (const method of methods.split(",")) {
        expect(rows.has(`${method} ${url}`), `${method} ${url} is in the table twice`).toBe(false);
        rows.set(`${method} ${url}`, scope);
      }
    }
  }
  return rows;
}

/** docs/api.md's table under "### Key scopes": rows `| \`METHODS url\` | scope |`, one per method. */
function documentedRows(): Map<string, string> {
  const text = readFileSync(new URL("../../docs/api.md", import.meta.url), "utf8");
  const start = text.indexOf("### Key scopes");
  expect(start, "docs/api.md has a section ### Key scopes").toBeGreaterThan(0);
  const section = text.slice(start, text.indexOf("\n## ", start));
  const rows = new Map<string, string>();
  for (const match of section.matchAll(/^\| `([A-Z,]+) ([^`]+)` \| (\w+) \|$/gm)) {
    for (const method of match[1]!.split(",")) rows.set(`${method} ${match[2]}`, match[3]!);
  }
  return rows;
}

describeEachEngine("the scopes of the routes", (engine) => {
  const gateway = useTestGateway(engine);

  it("gives every keyed route of every family a scope from the table, and the table names only real routes", () => {
    const keyed = gateway().gateway.app.keyedRoutes;
    const withoutRow = [...keyed].filter(([, scope]) => scope === "all").map(([route]) => route);
    expect(withoutRow, "routes without a row in src/app/route-scopes.ts's ROUTE_SCOPES").toEqual([]);
    const rows = tableRows();
    const stale = [...rows.keys()].filter((route) => !keyed.has(route));
    expect(stale, "rows of ROUTE_SCOPES naming no route").toEqual([]);
    // Each family is in it: v2, the operator API, legacy, XML, email, voice, WhatsApp.
    for (const route of [
      "POST /api/v2/sms/send",
      "GET /admin/api/accounts",
      "GET /httpapi/send",
      "POST /xmlapi/send",
      "POST /httpemailapi/v1/send",
      "GET /voicecall/v1/send",
      "POST /api/v2/whatsapp/send",
    ]) {
      expect(keyed.get(route), route).toBe(rows.get(route));
    }
    expect(keyed.size).toBeGreaterThan(150);
  });

  it("documents the same table in docs/api.md", () => {
    const documented = documentedRows();
    const rows = tableRows();
    const missing = [...rows].filter(([route, scope]) => documented.get(route) !== scope).map(([r, s]) => `${r} ${s}`);
    const extra = [...documented].filter(([route]) => !rows.has(route)).map(([route]) => route);
    expect(missing, "rows of the code's table that docs/api.md lacks or gives another scope").toEqual([]);
    expect(extra, "rows of docs/api.md's table that the code lacks").toEqual([]);
  });
});
