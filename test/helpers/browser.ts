// Browser tests of the console: playwright-core drives Debian's Chromium (its headless shell,
// /usr/bin/chromium-headless-shell, else /usr/bin/chromium, or CHROMIUM_PATH) against the real
// gateway serving the built console (dist/web). Where
// Chromium or the built console is missing the suite is skipped with a message, unless
// SWITCHBOARD_REQUIRE_BROWSER=1 (CI sets it) makes that a failure.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { CONSOLE_DIR } from "../../src/app/console/pages.js";
import {
  buildAccount,
  type TestAccount,
  type TestGateway,
  type TestGatewayOptions,
  useTestGateway,
} from "./gateway.js";

/**
 * The headless shell first: the same Blink without the browser's own layers, which ran the 26
 * browser files in 81–85 s against the full browser's 123–132 s, at 86 CPU-seconds of Chromium
 * against 192 (docs/benchmarks.md, issue 37: "Chromium's headless shell and four workers").
 */
const HEADLESS_SHELL = "/usr/bin/chromium-headless-shell";
export const CHROMIUM_PATH =
  process.env.CHROMIUM_PATH ?? [HEADLESS_SHELL, "/usr/bin/chromium"].find((path) => existsSync(path)) ?? HEADLESS_SHELL;
const required = process.env.SWITCHBOARD_REQUIRE_BROWSER === "1";

function browserProblem(): string | undefined {
  if (!existsSync(CHROMIUM_PATH))
    return `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium-headless-shell, or set CHROMIUM_PATH)`;
  if (!existsSync(join(CONSOLE_DIR, "index.html"))) return `the console is not built in ${CONSOLE_DIR} (npm run build)`;
  return undefined;
}

const problem = browserProblem();
if (problem && required) throw new Error(`SWITCHBOARD_REQUIRE_BROWSER=1 but ${problem}`);
if (problem) console.warn(`browser tests skipped: ${problem}`);

/** describe() that runs only where Chromium and the built console are present. */
export const describeInBrowser = problem ? describe.skip : describe;

let shared: Browser | undefined;
let closing: NodeJS.Timeout | undefined;
/** The suites using the shared browser now (a file may run two at once: describeEnginesTogether). */
let users = 0;

/**
 * How long the shared browser outlives a file that used it: the next file of the worker starts
 * within it when it is a browser file too. An idle headless Chromium still costs 2–3 % of a core,
 * which over a run's later files (the browser files run early: slowest first) was 15–25 CPU-s.
 */
const IDLE_CLOSE_MS = 2_000;

/**
 * One browser for the files of this worker process (vitest runs file after file in it): each
 * file's tests open their own contexts in it, and a file closes those it left open. Launching
 * Chromium per file cost 1–3 s of each. It closes once no file has used it for IDLE_CLOSE_MS,
 * and ends with the process at the latest (playwright kills it at exit).
 */
/**
 * Turns off playwright's AsyncLocalStorage (its "zones", entered by every API call) once the
 * worker's browser is closed. While one is enabled, Node 20 runs an async hook for every promise
 * of the process: after a browser file, every later file of the worker (most of them: the browser
 * files run early) paid it, and promise-heavy code (kysely, fastify, the tests' awaits) took up to
 * 2.7 times the CPU (a loop of awaits: 563 ms with the hook, 184 without). Playwright's next call
 * enables it again (AsyncLocalStorage.run does).
 */
function quietZones(): void {
  const { utils } = requireFromHere("playwright-core/lib/coreBundle") as {
    utils?: { emptyZone?: { _asyncLocalStorage?: { disable(): void } } };
  };
  utils?.emptyZone?._asyncLocalStorage?.disable();
}

export function useBrowser(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (problem) return;
    clearTimeout(closing);
    if (!shared?.isConnected()) {
      shared = await chromium.launch({
        executablePath: CHROMIUM_PATH,
        // Root in a container has no user namespace for the sandbox; the pages are our own.
        args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"],
      });
    }
    browser = shared;
    // Counted once it runs: a launch that failed leaves no user to keep it open.
    users += 1;
  }, 60_000);
  afterAll(async () => {
    if (!browser) return;
    users -= 1;
    if (users > 0) return;
    // What a failed test left open does not reach the next file.
    for (const context of browser.contexts()) await context.close();
    const idle = shared;
    closing = setTimeout(() => {
      if (shared === idle) shared = undefined;
      void idle?.close().finally(() => {
        if (!shared) quietZones();
      });
    }, IDLE_CLOSE_MS);
    closing.unref();
  });
  return () => {
    if (!browser) throw new Error("the browser is not running");
    return browser;
  };
}

export async function newPage(browser: Browser, baseURL: string, viewport = { width: 1280, height: 900 }) {
  const context: BrowserContext = await browser.newContext({ baseURL, viewport });
  const page = await context.newPage();
  // Any error the page logs fails the test that made it: an uncaught exception or a CSP refusal.
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error" && !/status of 4\d\d/.test(message.text())) problems.push(message.text());
  });
  return { context, page, problems };
}

/**
 * Signs in through the console's form. The form is opened at `path` (the overview unless
 * another is named), where the console then shows that page as a bookmark signed out would:
 * one load of the console instead of the overview's and then the page's.
 */
export async function signInAs(page: Page, username: string, password: string, path = "/"): Promise<void> {
  await page.goto(path);
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}

/** The phone every console page must fit (no sideways scroll at 390 px). */
export const PHONE = { width: 390, height: 844 };

/**
 * Opens `path` signed in as `username`: the session is opened by the sign-in route through the
 * page's context's own requests (which share its cookies), and the page loads once, signed in.
 * The form's fields, click and second render cost Chromium about 70–100 ms of CPU a sign-in:
 * tests that are not about signing in open their pages this way, those that are use signInAs.
 */
export async function openSignedIn(page: Page, username: string, password: string, path = "/"): Promise<void> {
  const answer = await page.context().request.post("/console/session", { data: { username, password } });
  expect(answer.status(), await answer.text()).toBe(201);
  await page.goto(path);
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}

/** A new page at phone width, signed in as `account` (its username and password) at `path` (openSignedIn). */
export async function phonePageAs(
  browser: Browser,
  baseURL: string,
  account: { username: string; password: string },
  path = "/",
) {
  const opened = await newPage(browser, baseURL, PHONE);
  await openSignedIn(opened.page, account.username, account.password, path);
  return opened;
}

/**
 * What a console page's browser tests share: the file's gateway (SQLite, `options` as
 * useTestGateway takes them), the worker's browser, an operator account (no sender ID), and pages
 * on the gateway: `phonePage(account, path)` signed in at 390 px (the operator's when no account
 * is named) at `path` (the overview unless named), `page(viewport)` signed in as nobody (390 px
 * unless another viewport is given).
 */
export function useConsole(options: TestGatewayOptions | (() => TestGatewayOptions) = {}) {
  const gateway = useTestGateway("sqlite", options);
  const browser = useBrowser();
  let operator: TestAccount | undefined;
  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
  });
  const theOperator = (): TestAccount => {
    if (!operator) throw new Error("the operator account is made in beforeAll");
    return operator;
  };
  return {
    gateway: (): TestGateway => gateway(),
    browser,
    operator: theOperator,
    phonePage: (account: { username: string; password: string } = theOperator(), path = "/") =>
      phonePageAs(browser(), gateway().url, account, path),
    page: (viewport = PHONE) => newPage(browser(), gateway().url, viewport),
  };
}

const requireFromHere = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(requireFromHere.resolve("axe-core/axe.min.js"), "utf8");

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[][];
}

/** Runs axe-core on the page as it is now: no serious or critical violation (WCAG 2 A and AA). */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern; once per
  // document (the console moves between its pages without loading another).
  if (!(await page.evaluate("typeof axe !== 'undefined'"))) await page.evaluate(AXE_SOURCE);
  const options = {
    runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] },
    // Every rule still runs on every node; only the violations are described (a unique selector
    // for each node of each passed rule was most of a run's time).
    resultTypes: ["violations"],
  };
  const violations = (await page.evaluate(
    `axe.run(document, ${JSON.stringify(options)}).then((result) => result.violations.map((v) =>
      ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target) })))`,
  )) as AxeViolation[];
  const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(serious, `${what}: ${JSON.stringify(serious, null, 1)}`).toEqual([]);
}

/** The page does not scroll sideways at this width (the 360 px phone layout). */
export async function expectNoHorizontalScroll(page: Page, what: string): Promise<void> {
  const overflow = (await page.evaluate(
    "document.documentElement.scrollWidth - document.documentElement.clientWidth",
  )) as number;
  expect(overflow, `${what} is wider than the viewport`).toBeLessThanOrEqual(0);
}

/** Every "Loading…" status of the page is gone (a page may load several sections at once). */
export async function noneLoading(page: Page): Promise<void> {
  // A locator, not waitForFunction: a string predicate that is not true at once is polled by
  // evaluating it in the page, which the console's CSP (script-src 'self', no unsafe-eval)
  // refuses; that showed only when a page was still loading at the first look (a slow machine).
  await page.locator("[role=status]", { hasText: "Loading" }).first().waitFor({ state: "detached" });
}

/**
 * Opens `path` in the console as its own links do (the History API: no new document), then waits
 * for the page: its heading shown and nothing loading. Cheaper than page.goto, which loads and
 * starts the console again (and drops axe); a test of a page opened by its address uses goto.
 */
export async function visit(page: Page, path: string): Promise<void> {
  // The router re-renders on popstate; the task after it runs once React has committed the new
  // page (or its Suspense fallback, a "Loading…" status that noneLoading waits out).
  await page.evaluate(`new Promise((resolve) => {
    history.pushState(null, "", ${JSON.stringify(path)});
    dispatchEvent(new PopStateEvent("popstate"));
    setTimeout(resolve, 0);
  })`);
  await page.locator("h1").first().waitFor();
  await noneLoading(page);
}

/**
 * The Send page's approved sender IDs are listed: a send before they arrive goes without one
 * (missing_sender_id), which a test of another refusal must not race into.
 */
export async function sendersListed(page: Page): Promise<void> {
  await page.getByLabel("Sender ID").locator("option").first().waitFor({ state: "attached" });
}
