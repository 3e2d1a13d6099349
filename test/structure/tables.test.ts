// Holds SQL in the folder that owns its table (test/structure/table-owners.ts): a file names in SQL
// only the tables of its own folder, the shared ones, and those its allow-list entry gives a reason for.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { folderOf } from "./import-graph.js";
import { FOLDERS } from "./rules.js";
import { SHARED_TABLES, TABLE_ALLOWED, TABLE_OWNERS } from "./table-owners.js";
import { readTableReferences, tablesNamed } from "./table-references.js";

const root = path.resolve(import.meta.dirname, "../..");

/** The tables of the `Database` interface: its members and those of the interfaces it extends (store/schema*.ts). */
function schemaTables(): string[] {
  const names: string[] = [];
  const files = readdirSync(path.join(root, "src/base/store")).filter((name) => /^schema(-[a-z]+)?\.ts$/.test(name));
  for (const file of files) {
    const text = readFileSync(path.join(root, "src/base/store", file), "utf8");
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest);
    for (const statement of source.statements) {
      if (!ts.isInterfaceDeclaration(statement)) continue;
      const name = statement.name.text;
      if (name !== "Database" && !name.endsWith("Tables")) continue;
      for (const member of statement.members)
        if (member.name && ts.isIdentifier(member.name)) names.push(member.name.text);
    }
  }
  return names.sort();
}

/** `file -> table` for every file that names a table owned by another folder. */
function crossings(references: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const found: string[] = [];
  for (const [file, tables] of references) {
    if (file.startsWith("src/base/store/migrations/")) continue;
    for (const table of tables) {
      if (SHARED_TABLES.includes(table)) continue;
      if (TABLE_OWNERS[table] !== folderOf(file)) found.push(`${file} -> ${table}`);
    }
  }
  return found.sort();
}

describe("SQL in the folder that owns the table", () => {
  const tables = schemaTables();
  const known = new Set(tables);
  const references = readTableReferences(root, known);
  const found = crossings(references);

  it("gives every table of the schema one owner, a folder with a tier", () => {
    expect(tables.length).toBeGreaterThan(40);
    expect([...Object.keys(TABLE_OWNERS), ...SHARED_TABLES].sort()).toEqual(tables);
    expect(Object.values(TABLE_OWNERS).filter((folder) => !FOLDERS.includes(folder))).toEqual([]);
  });

  it("reads the builders' tables, joins and raw SQL", () => {
    const source = [
      'db.selectFrom("messages as m").innerJoin("accounts", "accounts.id", "m.account_id")',
      'db.deleteFrom("login_failures"); db.updateTable("wallets"); db.insertInto("bulk_parts")',
      'q.leftJoin("carriers as c", "c.name", "x")',
      "sql`update sequences set next = next + 1`",
      'store.statement("select * from smpp_outbox where id = ?")',
      'const note = "deleted from contacts";',
    ].join("\n");
    expect([...tablesNamed(source, known)].sort()).toEqual([
      "accounts",
      "bulk_parts",
      "carriers",
      "login_failures",
      "messages",
      "sequences",
      "smpp_outbox",
      "wallets",
    ]);
    expect(references.get("src/domain/messages/transitions.ts")?.has("messages")).toBe(true);
  });

  it("names a table only in its owner's folder, beyond the allow-list", () => {
    expect(found.filter((crossing) => !(crossing in TABLE_ALLOWED))).toEqual([]);
  });

  it("allows only crossings that still occur (moved ones leave the allow-list)", () => {
    expect(Object.keys(TABLE_ALLOWED).filter((crossing) => !found.includes(crossing))).toEqual([]);
  });
});
