// The operator's audit export checked without the database (audit F19), on both engines: each JSON
// Lines entry carries prev_hash and the text its hash covers, so `audit verify --file` passes an
// export as written, names the first entry whose shown fields or hash were edited, one that no
// longer follows the entry before it, and lists the numbers a filtered (or cut) export lacks. An
// account's own export carries neither (they would show what its lines leave out).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it, vi } from "vitest";
import { checkAuditExport } from "../../src/domain/audit/index.js";
import { runCli, STACK_TRACE } from "../helpers/cli.js";
import { describeEachEngine } from "../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../helpers/gateway.js";
import { operatorCall } from "../helpers/legacy.js";

vi.setConfig({ testTimeout: 60_000 });

describeEachEngine("the audit export checked without the database", (engine) => {
  const gateway = useTestGateway(engine, { roles: ["api"] });
  let operator: TestAccount;
  let shop: TestAccount;
  const exported = async (query: string, key = operator.apiKey, family = "/admin/api") => {
    const answer = await call(gateway(), "GET", `${family}/audit/export?format=jsonl${query}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(answer.status, answer.text).toBe(200);
    return answer.text.split("\n").filter((line) => line !== "");
  };
  const edit = (lines: string[], index: number, change: (entry: Record<string, unknown>) => void) =>
    lines.map((line, i) => {
      if (i !== index) return line;
      const entry = JSON.parse(line) as Record<string, unknown>;
      change(entry);
      return JSON.stringify(entry);
    });

  it("passes an export as written, and names the first entry edited or out of its chain", async () => {
    operator = await buildAccount(gateway(), { role: "operator" });
    shop = await buildAccount(gateway());
    for (const amount of [5, 6, 7]) {
      const topup = await operatorCall(gateway(), operator, "POST", `/accounts/${shop.username}/credits`, {
        wallet: "sms",
        amount,
      });
      expect(topup.status, topup.text).toBe(200);
    }
    const lines = await exported("");
    expect(lines.length).toBeGreaterThanOrEqual(3);
    const first = JSON.parse(lines[0]!);
    expect(first.seq).toBe(1);
    expect(Object.keys(first)).toEqual(expect.arrayContaining(["hash", "prev_hash", "hashed"]));
    const intact = checkAuditExport(lines);
    expect(intact.broken).toBeUndefined();
    expect(intact.entries).toBe(lines.length);
    expect(intact.gaps).toEqual([]);
    expect(intact.last?.hash).toBe(JSON.parse(lines.at(-1)!).hash);

    // A field shown on the line, changed: the line no longer says what it hashed.
    const last = lines.length - 1;
    const seqOf = (i: number) => JSON.parse(lines[i]!).seq as number;
    const target = checkAuditExport(edit(lines, last, (entry) => (entry.target = "sms wallet of someone-else")));
    expect(target.broken).toEqual({ seq: seqOf(last), reason: "edited: its target is not the one it hashed" });
    const after = checkAuditExport(edit(lines, last, (entry) => ((entry.after as { amount: number }).amount = 700)));
    expect(after.broken?.reason).toBe("edited: its after is not the one it hashed");
    // What it hashed, changed: the hash no longer matches.
    const hashed = checkAuditExport(
      edit(lines, last, (entry) => {
        expect(String(entry.hashed)).toContain('"target":"sms wallet of');
        entry.hashed = String(entry.hashed).replace('"target":"sms wallet of', '"target":"SMS wallet of');
      }),
    );
    expect(hashed.broken).toEqual({ seq: seqOf(last), reason: "edited: what it hashed does not match its hash" });
    // An entry taken out of a whole export: the numbers it held are listed.
    const cut = checkAuditExport(lines.filter((_, i) => i !== 1));
    expect(cut.broken).toBeUndefined();
    expect(cut.gaps).toEqual([{ from: seqOf(1), to: seqOf(1) }]);
    // Two entries swapped.
    const swapped = [...lines];
    [swapped[1], swapped[2]] = [swapped[2]!, swapped[1]!];
    expect(checkAuditExport(swapped).broken?.reason).toMatch(/entry numbers must rise/);
    expect(checkAuditExport(["not json"]).broken?.reason).toMatch(/line 1 is not an entry/);
  });

  it("passes one account's export with its gaps listed; an account's own export carries no hashed text", async () => {
    const lines = await exported(`&account=${shop.username}&action=credits`);
    expect(lines).toHaveLength(3);
    const report = checkAuditExport(lines);
    expect(report.broken).toBeUndefined();
    expect(report.entries).toBe(3);
    expect(report.gaps.length).toBeGreaterThan(0);
    const own = await exported("", shop.apiKey, "/api/v2");
    expect(own.length).toBeGreaterThan(0);
    for (const line of own) expect(Object.keys(JSON.parse(line))).not.toContain("hashed");
  });

  it("audit verify --file checks a file without a database: exit 0 intact, 1 broken, a clear error for none", async () => {
    const dir = mkdtempSync(join(tmpdir(), "audit-export-"));
    const lines = await exported("");
    const good = join(dir, "audit.jsonl");
    writeFileSync(good, `${lines.join("\n")}\n`);
    const env = { DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" };
    const intact = await runCli(["audit", "verify", "--file", good], env);
    expect(intact.code, intact.stderr).toBe(0);
    expect(intact.stdout).toMatch(new RegExp(`^export intact: ${lines.length} entries, last \\d+ [0-9a-f]{64}`));
    const bad = join(dir, "edited.jsonl");
    writeFileSync(bad, edit(lines, 0, (entry) => (entry.action = "nothing")).join("\n"));
    const broken = await runCli(["audit", "verify", "--file", bad, "--json"], env);
    expect(broken.code).toBe(1);
    expect(JSON.parse(broken.stdout).broken).toEqual({ seq: 1, reason: "edited: its action is not the one it hashed" });
    const none = await runCli(["audit", "verify", "--file", join(dir, "missing.jsonl")], env);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toMatch(/missing\.jsonl/);
    expect(none.stderr).not.toMatch(STACK_TRACE);
  });
});
