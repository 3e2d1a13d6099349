// The `switchboard` command: run the gateway by role, migrate, and operator commands that
// work on the configured database directly (no running server needed). The commands are
// declared in cli-program.ts; this runs them.
import type { Gateway, Role } from "../gateway.js";
import { loadProgram } from "./cli-program.js";
import { runCommandLine } from "./cli-run.js";

async function run(roles: readonly Role[], seed: boolean): Promise<void> {
  // Loaded here, not above: an operator command never starts the gateway.
  const [{ loadConfig }, { credentialsBanner }, { startGateway }, names] = await Promise.all([
    import("../../base/runtime/config.js"),
    import("../bootstrap.js"),
    import("../gateway.js"),
    import("../../base/runtime/setting-names.js"),
  ]);
  const config = loadConfig();
  // Signals are handled from the start: a supervisor may stop the gateway the moment it says
  // it is running, and an unhandled SIGTERM would kill it without a clean shutdown.
  let gateway: Gateway | undefined;
  let signalled: string | undefined;
  let shuttingDown = false;
  const shutdown = (signal: string) => {
    signalled = signal;
    const stopping = gateway;
    if (!stopping) return;
    // A second signal (a HUP after the TERM) changes nothing: the first one's bound holds.
    if (shuttingDown) {
      stopping.ctx.logger.info({ signal }, "already shutting down");
      return;
    }
    shuttingDown = true;
    const { logger } = stopping.ctx;
    const started = Date.now();
    logger.info({ signal, timeout_s: config.shutdownTimeoutSeconds }, "shutting down: finishing work in flight");
    // The bound: whatever is still running then (a carrier that never answers, a request that
    // never ends) is abandoned; leases return claimed messages and webhooks to the queue.
    const bound = setTimeout(() => {
      logger.error(
        { signal, timeout_s: config.shutdownTimeoutSeconds, stage: stopping.stopStage() },
        "shutdown did not finish within SHUTDOWN_TIMEOUT_SECONDS; exiting with work unfinished",
      );
      process.exit(1);
    }, config.shutdownTimeoutSeconds * 1000);
    bound.unref();
    stopping
      .stop()
      .then(() => {
        logger.info({ signal, ms: Date.now() - started }, "stopped");
        process.exit(0);
      })
      .catch((error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      });
  };
  // SIGHUP too (docs/deployment.md, Signals): a closed terminal or a `kill -HUP` meant as
  // "reload" would otherwise end the process at once, dropping requests in flight. Nothing of a
  // running gateway is read again on a signal (account and carrier changes reach every process
  // through the database), so HUP stops it as TERM does, and the supervisor starts it again.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(signal, () => shutdown(signal));

  const started = await startGateway({ config, roles, bootstrap: seed });
  gateway = started;
  const { ctx } = started;
  if (started.bootstrapped) {
    const baseUrl = (started.url ?? `http://127.0.0.1:${config.port}`).replace("0.0.0.0", "127.0.0.1");
    const { showFirstStartBanner } = await import("./first-start-banner.js");
    showFirstStartBanner(credentialsBanner(started.bootstrapped, baseUrl), config, ctx.logger);
  }
  // Misspelt settings and empty guards (decision 0181): said once, as `doctor` says them.
  for (const line of names.environmentWarnings(process.env, names.carriersFileVariables(config.carriersFile))) {
    ctx.logger.warn(line);
  }
  ctx.logger.info({ roles, url: started.url, engine: ctx.store.engine, ...smppPorts(started) }, "switchboard running");
  if (signalled) shutdown(signalled);
}

function smppPorts(gateway: Gateway): Record<string, number> {
  const ports = gateway.smpp?.ports ?? {};
  return {
    ...(ports.port !== undefined ? { smpp_port: ports.port } : {}),
    ...(ports.tlsPort !== undefined ? { smpp_tls_port: ports.tlsPort } : {}),
  };
}

const code = await runCommandLine(await loadProgram(run, process.argv), process.argv);
// A command that failed ends at once; one that succeeded ends when its work is done (a role
// keeps serving until it is stopped).
if (code !== 0) process.exit(code);
