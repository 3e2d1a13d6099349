// Reads the shell examples out of the documentation and says whether an answer has the shape
// a `# …` comment under its command shows. Used by docs-examples.test.ts, which runs them.
//
// The conventions a documentation writer follows (CONTRIBUTING.md, "Documentation examples"):
// - A ```sh block runs, in order, in one shell session per file set; ```sh no-run is shown but
//   not run (say why next to it). Other languages (yaml, json) are files or answers, not run.
// - `http://localhost:8080` is the gateway; the test points it at the server it started.
// - `KEY=sb_...`, `PASSWORD=...`, `OPERATOR_KEY=sb_...` (a value with `...`) are placeholders
//   for what the first start prints; the test fills them in. Every other variable is set by an
//   earlier command.
// - A comment line right under a command is its expected answer when it is JSON (`…` elides
//   keys or items), a number, a broadcast id or one lower-case word. JSON is compared by shape:
//   every key shown must be there with a value of the same type (or null: not there yet);
//   the items shown are checked against the items there; booleans and the envelope's
//   `status` ("success", "error") must be equal; strings, numbers and ids may differ. A number
//   with a minus sign (a legacy error code) must be that code. Any other comment is prose.
// - A command without an expected answer must not answer an error (a JSON error envelope, or a
//   legacy negative code).

export interface Example {
  file: string;
  /** Line of the opening fence. */
  line: number;
  commands: Command[];
}

export interface Command {
  /** The command as written (continuation lines and heredocs included). */
  text: string;
  /** Line of its first line in the file. */
  line: number;
  /** The comment lines right under it, without `# `. */
  comments: string[];
}

const FENCE = /^```(\S*)\s*(.*)$/;
const SHELL = new Set(["sh", "bash", "shell", "console"]);

/** The ```sh blocks of a Markdown file that run (not marked no-run), split into commands. */
export function shellExamples(file: string, markdown: string): { run: Example[]; skipped: Example[] } {
  const lines = markdown.split("\n");
  const run: Example[] = [];
  const skipped: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !lines[j]!.startsWith("```")) body.push(lines[j++]!);
    if (SHELL.has(open[1]!)) {
      const example = { file, line: i + 1, commands: splitCommands(body, i + 2) };
      (/\bno-run\b/.test(open[2]!) ? skipped : run).push(example);
    }
    i = j;
  }
  return { run, skipped };
}

function splitCommands(body: string[], firstLine: number): Command[] {
  const commands: Command[] = [];
  let current: Command | undefined;
  let heredoc: string | undefined;
  let continued = false;
  // Open `for … done`, `if … fi`, `case … esac`: their lines are one command.
  let depth = 0;
  body.forEach((text, index) => {
    const line = firstLine + index;
    if (heredoc !== undefined || continued || depth > 0) {
      current!.text += `\n${text}`;
      if (heredoc !== undefined && text.trim() === heredoc) heredoc = undefined;
    } else if (/^\s*#/.test(text)) {
      // A comment under a command (before a blank line or the next command) is about its answer.
      if (current && current.text !== "") current.comments.push(text.replace(/^\s*#\s?/, ""));
      return;
    } else if (text.trim() === "") {
      if (current) current = { text: "", line, comments: [] };
      return;
    } else {
      current = { text, line, comments: [] };
      commands.push(current);
    }
    continued = /\\$/.test(text);
    if (heredoc === undefined) depth += opened(text) - closed(text);
    const opens = /<<-?\s*['"]?(\w+)['"]?/.exec(text);
    if (opens && heredoc === undefined && text.trim() !== opens[1]) heredoc = opens[1];
  });
  return commands.filter((command) => command.text !== "");
}

function opened(line: string): number {
  return (line.match(/(^\s*|[;&|]\s*|\bthen\s+|\bdo\s+)(for|while|until|if|case)\b/g) ?? []).length;
}

function closed(line: string): number {
  return (line.match(/(^\s*|[;&|]\s*)(done|fi|esac)\b/g) ?? []).length;
}

/** The credentials placeholders a reader fills in from the first start's banner. */
export const PLACEHOLDER_ASSIGNMENT = /^(\s*)([A-Z_]+)=(\S*\.\.\.\S*)(.*)$/;

export type Expectation =
  | { kind: "json"; shape: unknown; source: string }
  | { kind: "code"; value: string }
  | { kind: "number" }
  | { kind: "broadcast-id" }
  | { kind: "word" };

const BROADCAST_ID = /^\d+_\d{8}_\d+$/;

/** What a command's comment says its answer is, or undefined for prose. */
export function expectationOf(comments: readonly string[]): Expectation | undefined {
  const first = comments[0]?.trim();
  if (!first) return undefined;
  if (first.startsWith("{") || first.startsWith("[")) {
    return { kind: "json", shape: parseElided(first), source: first };
  }
  const token = first.split(/\s+/)[0]!;
  if (/^-\d+$/.test(token)) return { kind: "code", value: token };
  if (/^\d+(\.\d+)?$/.test(token)) return { kind: "number" };
  if (BROADCAST_ID.test(token)) return { kind: "broadcast-id" };
  if (/^[a-z_]+$/.test(first)) return { kind: "word" };
  return undefined;
}

/**
 * JSON with `…` standing for keys or items left out (outside strings): `{"a":1,…}`, `[…]`,
 * `{…,"b":2}`. Throws when what is left is not JSON: the comment is wrong, not the gateway.
 */
export function parseElided(text: string): unknown {
  let out = "";
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (inString) {
      out += char;
      if (char === "\\") out += text[++i] ?? "";
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    if (char === "…") continue;
    out += char;
  }
  // The commas an elision leaves behind: `{,"b"`, `"a":1,}`, `,,`.
  const cleaned = out
    .replace(/([{[])\s*,/g, "$1")
    .replace(/,\s*([}\]])/g, "$1")
    .replace(/,\s*,/g, ",")
    .replace(/:\s*([,}])/g, ":null$1");
  try {
    return JSON.parse(cleaned);
  } catch (error) {
    throw new Error(`not JSON once its … are taken out: ${text}\n(${(error as Error).message})`);
  }
}

/** Why `actual` does not have the shape `expected` shows, or undefined when it has. */
export function shapeMismatch(expected: unknown, actual: unknown, path = "$", top = true): string | undefined {
  if (expected === null) return undefined;
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: expected an array, got ${JSON.stringify(actual)}`;
    // The items shown are checked against the items there (a filter may match none today).
    for (let i = 0; i < Math.min(expected.length, actual.length); i++) {
      const problem = shapeMismatch(expected[i], actual[i], `${path}[${i}]`, false);
      if (problem) return problem;
    }
    return undefined;
  }
  if (typeof expected === "object") {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) {
      return `${path}: expected an object, got ${JSON.stringify(actual)}`;
    }
    for (const [key, value] of Object.entries(expected)) {
      if (!Object.hasOwn(actual, key)) return `${path}.${key}: missing`;
      const field = (actual as Record<string, unknown>)[key];
      if (top && key === "status" && (value === "success" || value === "error") && field !== value) {
        return `${path}.status: expected "${value}", got ${JSON.stringify(field)}`;
      }
      const problem = shapeMismatch(value, field, `${path}.${key}`, false);
      if (problem) return problem;
    }
    return undefined;
  }
  // A value not there yet (a delivery time before the report) is null.
  if (actual === null) return undefined;
  if (typeof expected === "boolean") {
    return actual === expected ? undefined : `${path}: expected ${expected}, got ${JSON.stringify(actual)}`;
  }
  return typeof actual === typeof expected
    ? undefined
    : `${path}: expected a ${typeof expected}, got ${JSON.stringify(actual)}`;
}

/** Why an answer does not match its expectation (or, without one, looks like an error). */
export function answerProblem(expectation: Expectation | undefined, output: string): string | undefined {
  const text = output.trim();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (!expectation) {
    if (/^-\d+$/.test(text)) return `answered the legacy error code ${text}`;
    const envelope = json as { success?: unknown; status?: unknown } | undefined;
    if (envelope && typeof envelope === "object" && (envelope.success === false || envelope.status === "error")) {
      return "answered an error";
    }
    return undefined;
  }
  switch (expectation.kind) {
    case "json":
      if (json === undefined) return "answered something that is not JSON";
      return shapeMismatch(expectation.shape, json);
    case "code":
      return text === expectation.value ? undefined : `expected ${expectation.value}`;
    case "number":
      return /^\d+(\.\d+)?$/.test(text) ? undefined : "expected a number";
    case "broadcast-id":
      return BROADCAST_ID.test(text) ? undefined : "expected a broadcast id";
    case "word":
      return /^[a-z_]+$/.test(text) ? undefined : "expected one lower-case word";
  }
}
