// The CLI describes itself: every command and option has a description, required options say
// so in the help, and every operator command can print JSON. Read from the command tree itself
// (one process per command would take a minute); cli.test.ts runs the executable for --version.
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { GROUP_DESCRIPTIONS } from "../../../src/app/cli/cli-group-names.js";
import { GROUP_MODULES } from "../../../src/app/cli/cli-groups.js";
import { loadFullProgram, loadProgram } from "../../../src/app/cli/cli-program.js";

const ROLES = new Set(["start", "api", "worker", "migrate"]);

function leaves(command: Command, path: string[] = []): { path: string; command: Command }[] {
  const children = command.commands.filter((c) => c.name() !== "help");
  if (children.length === 0) return [{ path: path.join(" "), command }];
  return children.flatMap((child) => leaves(child, [...path, child.name()]));
}

function everyCommand(command: Command, path: string[] = []): { path: string; command: Command }[] {
  return command.commands.flatMap((child) => {
    const here = [...path, child.name()];
    return [{ path: here.join(" "), command: child }, ...everyCommand(child, here)];
  });
}

const program = await loadFullProgram(async () => undefined);

describe("switchboard CLI help", () => {
  const all = everyCommand(program);
  const operatorCommands = leaves(program).filter(({ path }) => !ROLES.has(path));

  it("has a description on every command and every option", () => {
    expect(all.length).toBeGreaterThan(50);
    for (const { path, command } of all) {
      expect.soft(command.description(), path).not.toBe("");
      for (const option of command.options) {
        expect.soft(option.description, `${path} ${option.flags}`).not.toBe("");
      }
    }
  });

  it("marks required options as required in the help", () => {
    let required = 0;
    for (const { path, command } of all) {
      const help = command.helpInformation();
      for (const option of command.options.filter((o) => o.mandatory)) {
        required += 1;
        const line = help.split("\n").findIndex((l) => l.trimStart().startsWith(option.flags));
        // The description may wrap: the mark is on the option's line or the lines under it.
        const block = help
          .split("\n")
          .slice(line, line + 4)
          .join(" ");
        expect.soft(line, `${path} ${option.flags}`).toBeGreaterThanOrEqual(0);
        expect.soft(block, `${path} ${option.flags}`).toContain("(required)");
      }
      for (const option of command.options.filter((o) => !o.mandatory)) {
        const line = help.split("\n").find((l) => l.trimStart().startsWith(option.flags)) ?? "";
        expect.soft(line, `${path} ${option.flags}`).not.toContain("(required)");
      }
    }
    expect(required).toBeGreaterThan(30);
  });

  it("declares only the group a command line runs, and every group by name for the help", async () => {
    const run = async () => undefined;
    const topLevel = (command: Command) => command.commands.map((c) => [c.name(), c.description()]);
    const bare = await loadProgram(run, ["node", "switchboard", "--help"]);
    expect(topLevel(bare)).toEqual(topLevel(program));
    expect(bare.commands.every((c) => c.commands.length === 0)).toBe(true);
    const grouped = GROUP_MODULES.flatMap((m) => m.groups);
    expect(new Set(grouped).size).toBe(grouped.length);
    expect([...grouped].sort()).toEqual(Object.keys(GROUP_DESCRIPTIONS).sort());
    for (const argv of [
      ["accounts", "list"],
      ["--json", "keys", "list"],
      ["help", "credits"],
    ]) {
      const one = await loadProgram(run, ["node", "switchboard", ...argv]);
      const loaded = one.commands.filter((c) => c.commands.length > 0).map((c) => c.name());
      expect(loaded, argv.join(" ")).toEqual(["accounts", "keys", "credits", "sender-ids", "login-locks"]);
    }
  });

  it("gives every operator command --json", () => {
    expect(operatorCommands.length).toBeGreaterThan(40);
    for (const { path, command } of operatorCommands) {
      expect
        .soft(
          command.options.map((o) => o.long),
          path,
        )
        .toContain("--json");
    }
  });

  it("lists sender IDs and API keys, and says its version", () => {
    const paths = operatorCommands.map(({ path }) => path);
    expect(paths).toEqual(expect.arrayContaining(["sender-ids list", "keys list"]));
    expect(program.version()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
