// Reads which tables each file of src/ names in SQL: the Kysely builders' table arguments
// (selectFrom, updateTable, insertInto, deleteFrom, replaceInto, mergeInto and the joins) and the
// text of raw SQL (`sql` templates and string literals that open with a SQL verb). The structure
// test checks them against the owner map in table-owners.ts.
import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { sourceFiles } from "./import-graph.js";

const BUILDERS = new Set([
  "selectFrom",
  "updateTable",
  "insertInto",
  "deleteFrom",
  "replaceInto",
  "mergeInto",
  "innerJoin",
  "leftJoin",
  "rightJoin",
  "fullJoin",
  "innerJoinLateral",
  "leftJoinLateral",
]);

const RAW_STATEMENT = /^\s*(select|insert|update|delete|with|merge)\b/i;
const RAW_TABLE = /\b(?:from|join|update|into|table)\s+"?([a-z_][a-z0-9_]*)"?/gi;

/** Paths relative to the repository root with forward slashes, each with the tables it names. */
export type TableReferences = Map<string, Set<string>>;

/** The table a builder argument names: `"messages as m"` is `messages`. */
function tableOfArgument(node: ts.Node): string[] {
  if (ts.isStringLiteralLike(node)) return [node.text.trim().split(/\s+/)[0]!];
  if (ts.isArrayLiteralExpression(node)) return node.elements.flatMap(tableOfArgument);
  return [];
}

function templateText(node: ts.TemplateLiteral): string {
  if (ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  return [node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join(" ? ");
}

function rawTables(text: string, tables: ReadonlySet<string>): string[] {
  return [...text.matchAll(RAW_TABLE)].map((m) => m[1]!.toLowerCase()).filter((name) => tables.has(name));
}

/** The tables of `tables` that `source` names in SQL. */
export function tablesNamed(source: string, tables: ReadonlySet<string>): Set<string> {
  const file = ts.createSourceFile("file.ts", source, ts.ScriptTarget.Latest, true);
  const found = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      const first = node.arguments[0];
      if (BUILDERS.has(method) && first) {
        for (const name of tableOfArgument(first)) if (tables.has(name)) found.add(name);
      }
    }
    if (ts.isTaggedTemplateExpression(node) && node.tag.getText(file).replace(/\s/g, "").startsWith("sql")) {
      for (const name of rawTables(templateText(node.template), tables)) found.add(name);
    } else if (ts.isStringLiteralLike(node) || ts.isTemplateExpression(node)) {
      const text = ts.isTemplateExpression(node) ? templateText(node) : node.text;
      if (RAW_STATEMENT.test(text)) for (const name of rawTables(text, tables)) found.add(name);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

export function readTableReferences(root: string, tables: ReadonlySet<string>, folder = "src"): TableReferences {
  const references: TableReferences = new Map();
  for (const file of sourceFiles(path.join(root, folder), root).sort()) {
    const named = tablesNamed(readFileSync(path.join(root, file), "utf8"), tables);
    if (named.size > 0) references.set(file, named);
  }
  return references;
}
