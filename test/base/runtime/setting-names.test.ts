// Names in the environment that look like a setting but are not one, and a guard set to nothing:
// what start and doctor warn of (src/base/runtime/setting-names.ts).
import { expect, it } from "vitest";
import { environmentWarnings, GUARDS, NOT_SETTINGS } from "../../../src/base/runtime/setting-names.js";
import { SETTINGS } from "../../../src/base/runtime/settings.js";

/** Variables a machine, a shell, systemd, npm, CI or libpq set: never a warning. */
const COMMON =
  "HOME HOSTNAME PATH PWD OLDPWD USER LOGNAME SHELL SHLVL TERM LANG LC_ALL TZ NODE_ENV NODE_OPTIONS HTTP_PROXY HTTPS_PROXY NO_PROXY http_proxy https_proxy no_proxy PGHOST PGPORT PGUSER PGPASSWORD PGDATABASE PGSSLMODE CI GITHUB_ACTIONS RUNNER_OS INVOCATION_ID JOURNAL_STREAM SYSTEMD_EXEC_PID MAINPID NOTIFY_SOCKET LISTEN_FDS EDITOR PAGER DISPLAY MAIL TMPDIR TEMP XDG_RUNTIME_DIR SSH_AUTH_SOCK SESSION_MANAGER COLORTERM FORCE_COLOR NO_COLOR DEBUG LOG_FILE npm_config_cache npm_lifecycle_event npm_package_name INIT_CWD COLUMNS LINES AIRTEL_SMPP_PASSWORD BENCH_SWITCHBOARD_ENV FUZZ_DATABASE_URL SUITE_PROFILE_DIR".split(
    " ",
  );

it("says nothing of a machine's, a shell's, CI's or the test suite's own variables, nor of this process's", () => {
  const env = Object.fromEntries([...COMMON, ...NOT_SETTINGS, ...Object.keys(process.env)].map((name) => [name, "x"]));
  expect(environmentWarnings(env)).toEqual([]);
});

it("names a misspelt setting and the one it meant", () => {
  expect(environmentWarnings({ METRIC_TOKEN: "x", REDIS_REQUIERD: "1", DATABASE_URI: "postgres://h/db" })).toEqual([
    "DATABASE_URI is not a setting: did you mean DATABASE_URL? It is ignored, and DATABASE_URL keeps its value",
    "METRIC_TOKEN is not a setting: did you mean METRICS_TOKEN? It is ignored, and METRICS_TOKEN keeps its value",
    "REDIS_REQUIERD is not a setting: did you mean REDIS_REQUIRED? It is ignored, and REDIS_REQUIRED keeps its value",
  ]);
  expect(environmentWarnings({ metrics_token: "x" })).toEqual([
    "metrics_token is not a setting (names are upper case): did you mean METRICS_TOKEN? It is ignored",
  ]);
});

it("names an unknown variable with the project's prefixes, and the setting it may have meant", () => {
  expect(
    environmentWarnings({ SWITCHBOARD_PORT: "1", SWITCHBORD_PORT: "1", SMPP_SERVER_TLS: "1", SQLITE_WAL: "1" }),
  ).toEqual([
    "SMPP_SERVER_TLS looks like a Switchboard setting (SMPP_…) but is not one; it is ignored (README, Settings, lists them)",
    "SQLITE_WAL looks like a Switchboard setting (SQLITE_…) but is not one; it is ignored (README, Settings, lists them)",
    "SWITCHBOARD_PORT looks like a Switchboard setting (SWITCHBOARD_…) but is not one; it is ignored: did you mean PORT?",
    "SWITCHBORD_PORT looks like a Switchboard setting (SWITCHBOARD_…) but is not one; it is ignored: did you mean PORT?",
  ]);
  // The carriers file's ${NAME}s are read by the gateway: not a mistake.
  expect(environmentWarnings({ SMPP_PASSWORD: "s3cret" }, ["SMPP_PASSWORD"])).toEqual([]);
  expect(environmentWarnings({ SMPP_PASSWORD: "s3cret" })).toHaveLength(1);
});

it("says that an empty METRICS_TOKEN leaves /metrics open, and nothing of other empty settings", () => {
  expect(environmentWarnings({ METRICS_TOKEN: "", REDIS_URL: "", PUBLIC_URL: " " })).toEqual([
    "METRICS_TOKEN is set but empty, which counts as unset: /metrics answers whoever reaches the HTTP port. Give it a value, or remove the line",
  ]);
  expect(environmentWarnings({ METRICS_TOKEN: "t0ken" })).toEqual([]);
  for (const name of Object.keys(GUARDS)) expect(SETTINGS).toHaveProperty(name);
});
