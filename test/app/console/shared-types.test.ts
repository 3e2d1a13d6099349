// The console reads the server's answers through the server's own schemas (web/src/types.ts,
// operator-types.ts): a field renamed in a schema fails the console's type check where a page
// reads it. Checked with the TypeScript compiler and web/tsconfig.json's options on the pages
// that read the fields (and all they import), with the fields renamed in a v2 schema, an operator
// schema and the shared page meta: each page fails on its field, and on nothing else.
import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../../..");

/** In each schema file, the first `field:` becomes `field_renamed:`; `reader` reads the field. */
const RENAMES = [
  { file: "src/channels/sms/v2-schemas.ts", field: "mobile", reader: "web/src/pages/Messages.tsx" },
  { file: "src/app/admin/account-schemas.ts", field: "flood_limit", reader: "web/src/pages/operator/Account.tsx" },
  { file: "src/base/http/answer-schemas.ts", field: "last_page", reader: "web/src/ui.tsx" },
];

const readers = RENAMES.map((r) => path.join(root, r.reader));

/** The reading pages as web/tsconfig.json checks them, with `edits` (absolute path → text) in place of those files. */
function consoleProgram(edits: ReadonlyMap<string, string>): ts.Program {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    path.join(root, "web/tsconfig.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
      },
    },
  );
  if (!parsed) throw new Error("web/tsconfig.json could not be read");
  const host = ts.createCompilerHost(parsed.options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, language, onError, createNew) => {
    const edited = edits.get(path.resolve(fileName));
    return edited === undefined
      ? read(fileName, language, onError, createNew)
      : ts.createSourceFile(fileName, edited, language);
  };
  return ts.createProgram({ rootNames: readers, options: parsed.options, host });
}

/** The type errors of the reading pages. */
function errors(program: ts.Program): { file: string; message: string }[] {
  return readers.flatMap((reader) =>
    [
      ...program.getSyntacticDiagnostics(program.getSourceFile(reader)),
      ...program.getSemanticDiagnostics(program.getSourceFile(reader)),
    ].map((d) => ({
      file: path.relative(root, reader).split(path.sep).join("/"),
      message: ts.flattenDiagnosticMessageText(d.messageText, "\n"),
    })),
  );
}

it("fails the console's type check where a page reads a field the server's schema renamed", { timeout: 60_000 }, () => {
  const edits = new Map<string, string>();
  for (const { file, field } of RENAMES) {
    const text = readFileSync(path.join(root, file), "utf8");
    const renamed = text.replace(new RegExp(`\\b${field}:`), `${field}_renamed:`);
    expect(renamed, `${file} declares ${field}`).not.toBe(text);
    edits.set(path.join(root, file), renamed);
  }
  const found = errors(consoleProgram(edits));
  for (const { field, reader } of RENAMES) {
    expect(found, `${reader} reads ${field}`).toContainEqual({
      file: reader,
      message: expect.stringMatching(new RegExp(`'${field}' does not exist`)),
    });
  }
  // Nothing else fails (the pages check clean as they are: npm run typecheck), only what the renames
  // cause: a missing field, or a shape with the old name handed where the new one is wanted.
  const renamedFields = new RegExp(`\\b(${RENAMES.map((r) => r.field).join("|")})(_renamed)?\\b`);
  expect(found.filter((error) => !renamedFields.test(error.message))).toEqual([]);
});
