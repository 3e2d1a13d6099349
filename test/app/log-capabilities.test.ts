// What the request log keeps of a URL that carries a secret (security audit 4): a delivery-report
// secret sent in the query (?X-Dlr-Secret=…, any case) is [REDACTED] as docs/api.md says such
// parameters are, and the capability part of the email's unsubscribe, open and click links
// (/e/u/, /e/o/, /e/c/: the mac, and the click's target) and of a short link (/l/: the code)
// is replaced: whoever reads the log could otherwise act on them.
import { expect, it } from "vitest";
import { until } from "../domain/webhooks/receiver.js";
import { describeEachEngine } from "../helpers/engines.js";
import { useTestGateway } from "../helpers/gateway.js";
import { captureLogs } from "../helpers/log-capture.js";

describeEachEngine("the request log and URLs that carry a secret", (engine) => {
  const logs = captureLogs();
  const gateway = useTestGateway(engine, {
    logger: logs.logger,
    env: { SHORT_LINK_BASE: "https://go.example.in/l" },
  });

  async function loggedUrlOf(path: string): Promise<string> {
    const before = logs.lines.length;
    const response = await fetch(`${gateway().url}${path}`, { redirect: "manual" });
    await response.arrayBuffer();
    // The line is written once the answer is sent, which the client may read first.
    await until(() => logs.lines.slice(before).some((l) => l.http !== undefined), 5_000);
    return logs.lines.slice(before).find((l) => l.http !== undefined)!.http.url as string;
  }

  it("redacts a DLR secret in the query, whatever its case", async () => {
    for (const name of ["X-Dlr-Secret", "x-dlr-secret", "X-DLR-SECRET"]) {
      const url = await loggedUrlOf(`/carriers/http-sms/agg/dlr?id=7&${name}=dlr-secret-123&status=DELIVRD`);
      expect(url).toBe(`/carriers/http-sms/agg/dlr?id=7&${name}=[REDACTED]&status=DELIVRD`);
    }
    expect(logs.text()).not.toContain("dlr-secret-123");
  });

  it("logs the email's links and short links with their capability replaced", async () => {
    expect(await loggedUrlOf("/e/u/123/unsubscribe-mac-value")).toBe("/e/u/123/[REDACTED]");
    expect(await loggedUrlOf("/e/o/123/open-mac-value.gif")).toBe("/e/o/123/[REDACTED]");
    expect(await loggedUrlOf("/e/c/123/click-mac-value?u=https%3A%2F%2Fshop.example%2Fcart")).toBe(
      "/e/c/123/[REDACTED]",
    );
    expect(await loggedUrlOf("/E/U/123/upper-mac-value/extra")).toBe("/E/U/123/[REDACTED]");
    expect(await loggedUrlOf("/l/Short-Code-Value")).toBe("/l/[REDACTED]");
    expect(await loggedUrlOf("/L/Upper-Code-Value")).toBe("/L/[REDACTED]");
    for (const secret of ["mac-value", "shop.example", "Code-Value"]) expect(logs.text()).not.toContain(secret);
    // Other paths are logged as they were.
    expect(await loggedUrlOf("/e/x/1/2?a=b")).toBe("/e/x/1/2?a=b");
  });
});
