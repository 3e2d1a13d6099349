// A `switchboard` process that runs operator commands one after another on request, with the
// modules loaded once: the same built program (dist/app/cli/cli-program.js) and exit-code rules
// (dist/app/cli/cli-run.js) as the executable, each command with its own environment, working
// directory, stdout, stderr and exit code. It saves the second of Node start-up that every
// spawned command costs; test/helpers/cli.ts uses it for everything but the roles.
import { loadFullProgram } from "../../dist/app/cli/cli-program.js";
import { runCommandLine } from "../../dist/app/cli/cli-run.js";

const home = process.cwd();
const realWrite = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr) };

function capture() {
  const out = [];
  const err = [];
  const sink = (into) => (chunk, encoding, done) => {
    into.push(
      typeof chunk === "string" ? chunk : Buffer.from(chunk).toString(typeof encoding === "string" ? encoding : "utf8"),
    );
    const callback = typeof encoding === "function" ? encoding : done;
    if (callback) process.nextTick(callback);
    return true;
  };
  process.stdout.write = sink(out);
  process.stderr.write = sink(err);
  return () => {
    process.stdout.write = realWrite.out;
    process.stderr.write = realWrite.err;
    return { stdout: out.join(""), stderr: err.join("") };
  };
}

async function runOne({ args, env, cwd }) {
  for (const key of Object.keys(process.env)) delete process.env[key];
  Object.assign(process.env, env);
  process.chdir(cwd ?? home);
  process.exitCode = undefined;
  const release = capture();
  let code;
  try {
    const program = await loadFullProgram(async () => {
      throw new Error("the CLI host does not run roles; test/helpers/cli.ts spawns them");
    });
    code = await runCommandLine(program, ["node", "switchboard", ...args]);
  } catch (error) {
    process.stderr.write(`cli-host: ${error?.stack ?? error}\n`);
    code = 1;
  }
  const { stdout, stderr } = release();
  process.exitCode = undefined;
  return { code, stdout, stderr };
}

let queue = Promise.resolve();
process.on("message", (request) => {
  queue = queue.then(async () => {
    // The test times the command from here, not from its request: others may be ahead of it.
    process.send({ id: request.id, started: true });
    const result = await runOne(request);
    process.send({ id: request.id, ...result });
  });
});
process.on("disconnect", () => process.exit(0));
process.send({ ready: true });
