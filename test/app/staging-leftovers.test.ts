// A process killed mid-upload (kill -9) leaves its upload's staging file; the staging files live in
// a directory of the gateway's own, and the next start removes those of processes no longer
// running (audit: they stayed in /tmp for ever), never a running process's.
import { once } from "node:events";
import { watch } from "node:fs";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEachEngine } from "../helpers/engines.js";
import { pipelineAccount, useKilledServers } from "../helpers/killed-servers.js";
import { RawConnection } from "../helpers/raw-http.js";

let temporary = "";
beforeAll(async () => {
  temporary = await mkdtemp(join(tmpdir(), "staging-leftovers-"));
});
afterAll(async () => {
  await rm(temporary, { recursive: true, force: true });
});

/** The staging directory of a gateway whose TMPDIR is `tmp`. */
const stagingOf = (tmp: string) => join(tmp, `switchboard-staging-${process.getuid?.() ?? "user"}`);

async function stagedIn(directory: string): Promise<string[]> {
  return (await readdir(directory).catch(() => [] as string[])).filter((name) => name.endsWith(".staged"));
}

describeEachEngine("staging files a killed process left", (engine) => {
  const servers = useKilledServers(engine);

  it("are removed at the next start; a running process's stays", { timeout: 120_000 }, async () => {
    const db = servers.db();
    const account = await pipelineAccount(db, "stager", {});
    const tmp = await mkdtemp(join(temporary, `${engine}-`));
    const directory = () => stagingOf(tmp);
    const staged = () => stagedIn(directory());
    const env = { DATABASE_URL: db.url, TMPDIR: tmp };
    const first = await servers.start(env);
    const group = await fetch(`${first.url}/api/v2/groups`, {
      method: "POST",
      headers: { authorization: `Bearer ${account.api_key}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Killed" }),
    });
    expect(group.status).toBe(201);
    const groupId = ((await group.json()) as { data: { id: number } }).data.id;
    // The gateway made its staging directory at start.
    const watcher = watch(directory());
    const connection = await RawConnection.open(first.url);
    try {
      const appeared = once(watcher, "change", { signal: AbortSignal.timeout(20_000) });
      connection.write(
        `POST /api/v2/groups/${groupId}/contacts HTTP/1.1\r\nHost: x\r\nContent-Type: text/csv\r\n` +
          `Authorization: Bearer ${account.api_key}\r\nContent-Length: 10000000\r\n\r\n`,
      );
      connection.write(`${Array.from({ length: 10_000 }, (_, i) => String(7_000_000_000 + i)).join("\n")}\n`);
      await appeared;
      expect(await staged()).toHaveLength(1);
    } finally {
      watcher.close();
    }
    // Mid-upload: the body's rest never comes.
    await first.stop("SIGKILL");
    connection.close();
    const left = await staged();
    expect(left).toHaveLength(1);
    // A file of a process still running (this test's), as another gateway's upload in progress.
    const running = `${process.pid}-0123456789ab-00000000-0000-4000-8000-000000000000.staged`;
    await writeFile(join(directory(), running), "");

    const second = await servers.start(env);
    expect(await staged()).toEqual([running]);
    expect(second.output()).toContain("removed staging files left by a stopped process");
    console.info(`[${engine}] killed mid-upload: ${left[0]} left, removed at the next start`);
    await second.stop("SIGTERM");
  });
});
