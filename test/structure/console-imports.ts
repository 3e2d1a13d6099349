// What the console (web/src/) takes from src/: the answer schemas' types, by `import type`; by value,
// a few lists of words (wallets, channels, approval kinds) and the SMS segment count. The files it
// reaches, and every `*schemas.ts` of src/, are shared with browser code: they may import only
// packages that run there (rules.ts, BROWSER_PACKAGES) and each other.
import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { type ImportGraph, sourceFiles } from "./import-graph.js";

export interface ConsoleImport {
  /** The web/src/ file, relative to the repository root. */
  from: string;
  /** The src/ file it names. */
  to: string;
  /** `import type`: erased from the bundle. */
  typeOnly: boolean;
}

/** The module specifiers a file imports or re-exports, with whether each is type-only. */
export function specifiersOf(text: string, fileName = "file.ts"): { specifier: string; typeOnly: boolean }[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false);
  const found: { specifier: string; typeOnly: boolean }[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      const clause = statement.importClause;
      const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings : undefined;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined && named !== undefined && named.elements.every((e) => e.isTypeOnly)));
      found.push({ specifier: statement.moduleSpecifier.text, typeOnly });
    } else if (
      ts.isExportDeclaration(statement) &&
      statement.moduleSpecifier &&
      ts.isStringLiteral(statement.moduleSpecifier)
    ) {
      found.push({ specifier: statement.moduleSpecifier.text, typeOnly: statement.isTypeOnly });
    }
  }
  return found;
}

/** Every import of a src/ file by a file of web/src/. */
export function consoleImports(root: string): ConsoleImport[] {
  const found: ConsoleImport[] = [];
  for (const from of sourceFiles(path.join(root, "web/src"), root, [], /\.tsx?$/)) {
    for (const { specifier, typeOnly } of specifiersOf(readFileSync(path.join(root, from), "utf8"), from)) {
      if (!specifier.startsWith(".")) continue;
      const to = path.posix.join(path.posix.dirname(from), specifier).replace(/\.js$/, ".ts");
      if (to.startsWith("src/")) found.push({ from, to, typeOnly });
    }
  }
  return found.sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to));
}

/** The files of src/ shared with browser code: every `*schemas.ts`, what the console imports, and what those import. */
export function sharedWithBrowsers(graph: ImportGraph, root: string): Set<string> {
  const shared = new Set<string>();
  const visit = (file: string) => {
    if (shared.has(file)) return;
    shared.add(file);
    for (const next of graph.get(file) ?? []) visit(next);
  };
  for (const file of graph.keys()) if (file.endsWith("schemas.ts")) visit(file);
  for (const { to } of consoleImports(root)) visit(to);
  return shared;
}

/** The packages a file imports (specifiers that are not relative paths). */
export function packagesOf(text: string): string[] {
  return specifiersOf(text)
    .map((s) => s.specifier)
    .filter((specifier) => !specifier.startsWith("."));
}
