// A throwaway nginx of the test's own in front of a gateway: TLS with the test's certificate on a
// free loopback port, proxying to the gateway with the headers docs/deployment.md shows. It runs
// as a child process with its own prefix, configuration and logs in a temp directory; the
// system's nginx service is never touched. Where nginx is missing the suites that need it are
// skipped with a message, unless SWITCHBOARD_REQUIRE_NGINX=1 (CI sets it) makes that a failure.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { freePort } from "./throwaway.js";

export const NGINX_PATH = process.env.NGINX_PATH ?? "/usr/sbin/nginx";

/** Why nginx cannot run here, or undefined when it can. */
function nginxProblem(): string | undefined {
  if (!fs.existsSync(NGINX_PATH)) return `no nginx at ${NGINX_PATH} (apt-get install nginx, or set NGINX_PATH)`;
  try {
    execFileSync(NGINX_PATH, ["-v"], { stdio: "ignore" });
    return undefined;
  } catch (error) {
    return `${NGINX_PATH} -v failed: ${(error as Error).message}`;
  }
}

const problem = nginxProblem();
if (problem && process.env.SWITCHBOARD_REQUIRE_NGINX === "1") {
  throw new Error(`SWITCHBOARD_REQUIRE_NGINX=1 but ${problem}`);
}
/** Undefined where nginx runs; else why not (the suites are skipped, and say so). */
export const nginxMissing = problem;

export interface ThrowawayNginx {
  /** https://127.0.0.1:<port> */
  url: string;
  stop(): Promise<void>;
}

/** The reverse proxy of docs/deployment.md, trimmed to what a test needs. */
function proxyConfig(dir: string, port: number, upstream: string, tls: { cert: string; key: string }): string {
  return `
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${port} ssl;
    ssl_certificate ${tls.cert};
    ssl_certificate_key ${tls.key};
    location / {
      proxy_pass ${upstream};
      proxy_http_version 1.1;
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
    }
  }
}
`;
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** Starts nginx in front of `upstream` (http://127.0.0.1:<port>), ending TLS with the given PEM files. */
export async function startThrowawayNginx(
  upstream: string,
  tls: { cert: string; key: string },
): Promise<ThrowawayNginx> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-nginx-"));
  // nginx's workers drop root for nobody, and must still reach their temp directories.
  fs.chmodSync(dir, 0o755);
  const port = await freePort();
  const conf = path.join(dir, "nginx.conf");
  fs.writeFileSync(conf, proxyConfig(dir, port, upstream, tls));
  // -g "daemon off;": the master stays this child, so stopping it stops nginx; -e: no default log.
  const child: ChildProcess = spawn(
    NGINX_PATH,
    ["-p", dir, "-c", conf, "-e", path.join(dir, "error.log"), "-g", "daemon off;"],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const deadline = Date.now() + 15_000;
  while (!(await portAnswers(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      const log = fs.existsSync(path.join(dir, "error.log"))
        ? fs.readFileSync(path.join(dir, "error.log"), "utf8")
        : "";
      fs.rmSync(dir, { recursive: true, force: true });
      throw new Error(`nginx did not listen on ${port}: ${stderr}${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `https://127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode === null) {
        // SIGTERM: nginx's fast shutdown, workers included.
        child.kill("SIGTERM");
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
