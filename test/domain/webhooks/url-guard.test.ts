import { describe, expect, it } from "vitest";
import { GatewayError } from "../../../src/base/core/errors.js";
import { ConfigError, loadConfig } from "../../../src/base/runtime/config.js";
import {
  checkWebhookUrl,
  type HostLookup,
  type ResolvedAddress,
  resolveWebhookTarget,
} from "../../../src/domain/webhooks/url-guard.js";

const STRICT = { allowPrivate: false };
const OPEN = { allowPrivate: true };

function refusal(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    const gatewayError = error as GatewayError;
    expect(gatewayError.code).toBe("invalid_request");
    expect(gatewayError.details).toEqual({ field: "url" });
    return gatewayError;
  }
  throw new Error("the URL was accepted");
}

async function asyncRefusal(run: () => Promise<unknown>): Promise<GatewayError> {
  const error = await run().then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

function answering(...addresses: string[]): HostLookup {
  return async () => addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
}

// Hosts written as IP literals, with the words the refusal must use.
const FORBIDDEN_IPV4: [string, RegExp][] = [
  ["127.0.0.1", /loopback/],
  ["127.255.255.254", /loopback/],
  ["10.0.0.1", /private/],
  ["10.255.255.255", /private/],
  ["172.16.0.1", /private/],
  ["172.31.255.254", /private/],
  ["192.168.1.1", /private/],
  ["169.254.0.1", /link-local/],
  ["169.254.169.254", /metadata/],
  ["168.63.129.16", /metadata/],
  ["100.100.100.200", /metadata/],
  ["0.0.0.0", /unspecified/],
  ["0.1.2.3", /unspecified/],
  ["100.64.0.1", /carrier-grade NAT/],
  ["100.127.255.254", /carrier-grade NAT/],
  ["224.0.0.1", /multicast/],
  ["239.255.255.250", /multicast/],
  ["255.255.255.255", /broadcast/],
  ["240.0.0.1", /reserved/],
  ["192.0.0.192", /reserved/],
  ["198.18.0.1", /reserved/],
  ["192.0.2.10", /documentation/],
  ["198.51.100.10", /documentation/],
  ["203.0.113.10", /documentation/],
];

const FORBIDDEN_IPV6: [string, RegExp][] = [
  ["::1", /loopback/],
  ["::", /unspecified/],
  ["fc00::1", /private/],
  ["fd12:3456::1", /private/],
  ["fd00:ec2::254", /metadata/],
  ["fd20:ce::254", /metadata/],
  ["::ffff:168.63.129.16", /metadata/],
  ["64:ff9b::168.63.129.16", /metadata/],
  ["fe80::1", /link-local/],
  ["febf::1", /link-local/],
  ["ff02::1", /multicast/],
  ["2001:db8::1", /documentation/],
  ["::ffff:127.0.0.1", /loopback/],
  ["::ffff:10.1.2.3", /private/],
  ["::ffff:169.254.169.254", /metadata/],
  ["0:0:0:0:0:ffff:c0a8:0101", /private/],
  ["64:ff9b::127.0.0.1", /loopback/],
  ["::127.0.0.1", /IPv4-compatible/],
  ["100::1", /reserved/],
  ["2002:7f00:1::1", /reserved/],
];

describe("checkWebhookUrl", () => {
  it("accepts an https URL on a public name or address, and returns it parsed", () => {
    const url = checkWebhookUrl("https://hooks.example.com:8443/sms?account=7", STRICT);
    expect(url.hostname).toBe("hooks.example.com");
    expect(url.port).toBe("8443");
    expect(checkWebhookUrl("https://93.184.216.34/hook", STRICT).hostname).toBe("93.184.216.34");
    expect(checkWebhookUrl("https://[2606:2800:220:1::]/hook", STRICT).hostname).toBe("[2606:2800:220:1::]");
    expect(checkWebhookUrl("https://[::ffff:93.184.216.34]/hook", STRICT).hostname).toBe("[::ffff:5db8:d822]");
    expect(checkWebhookUrl("https://[64:ff9b::93.184.216.34]/", STRICT).hostname).toBe("[64:ff9b::5db8:d822]");
  });

  it.each(FORBIDDEN_IPV4)("refuses IPv4 %s", (address, words) => {
    const error = refusal(() => checkWebhookUrl(`https://${address}/hook`, STRICT));
    expect(error.message).toMatch(words);
    expect(error.message).toMatch(/SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS=1/);
    expect(checkWebhookUrl(`https://${address}/hook`, OPEN).hostname).toBe(address);
  });

  it.each(FORBIDDEN_IPV6)("refuses IPv6 [%s]", (address, words) => {
    expect(refusal(() => checkWebhookUrl(`https://[${address}]:8443/hook`, STRICT)).message).toMatch(words);
    expect(checkWebhookUrl(`https://[${address}]:8443/hook`, OPEN).port).toBe("8443");
  });

  // WHATWG URL parsing rewrites these hosts to 127.0.0.1 (or 10.0.0.1) before the guard looks.
  it.each([
    ["decimal", "2130706433", "127.0.0.1"],
    ["octal", "0177.0.0.1", "127.0.0.1"],
    ["hex", "0x7f.1", "127.0.0.1"],
    ["hex, one part", "0x7f000001", "127.0.0.1"],
    ["short", "127.1", "127.0.0.1"],
    ["percent-encoded", "%31%32%37.0.0.1", "127.0.0.1"],
    ["ideographic full stops", "127\u30020\u30020\u30021", "127.0.0.1"],
    ["octal private", "012.0.0.1", "10.0.0.1"],
  ])("refuses a %s IPv4 host (%s is %s)", (_form, host, dotted) => {
    expect(new URL(`https://${host}/`).hostname).toBe(dotted);
    expect(refusal(() => checkWebhookUrl(`https://${host}/`, STRICT)).message).toContain(dotted);
  });

  it.each([
    ["localhost", /loopback name/],
    ["LOCALHOST.", /loopback name/],
    ["api.localhost", /loopback name/],
    ["metadata.google.internal", /metadata/],
    ["metadata.goog", /metadata/],
    ["db.corp.internal", /private-network name/],
    ["printer.local", /private-network name/],
    ["metadata", /without a domain/],
  ])("refuses the name %s", (host, words) => {
    expect(refusal(() => checkWebhookUrl(`https://${host}/hook`, STRICT)).message).toMatch(words);
    expect(() => checkWebhookUrl(`https://${host}/hook`, OPEN)).not.toThrow();
  });

  it("refuses plain http unless private targets are allowed", () => {
    expect(refusal(() => checkWebhookUrl("http://hooks.example.com/", STRICT)).message).toMatch(/uses http; use https/);
    expect(checkWebhookUrl("http://hooks.example.com/", OPEN).protocol).toBe("http:");
    expect(checkWebhookUrl("http://127.0.0.1:9000/", OPEN).port).toBe("9000");
  });

  it.each([
    "ftp://hooks.example.com/",
    "file:///etc/passwd",
    "javascript:alert(1)",
    "ws://hooks.example.com/",
  ])("refuses the scheme of %s even when private targets are allowed", (raw) => {
    expect(refusal(() => checkWebhookUrl(raw, OPEN)).message).toMatch(/use https/);
  });

  it.each([
    ["https://user:secret@hooks.example.com/", /user name or password/],
    ["https://user@hooks.example.com/", /user name or password/],
    ["https://:secret@hooks.example.com/", /user name or password/],
    ["/relative/path", /not an absolute URL/],
    ["hooks.example.com/path", /not an absolute URL/],
    ["", /not an absolute URL/],
    ["https://", /not an absolute URL/],
    ["https://hooks.example.com:0/", /port 0/],
    ["https://hooks.example.com:65536/", /not an absolute URL/],
    ["https://hooks.exa\tmple.com/", /control characters/],
    ["https://hooks.example.com/a b", /spaces/],
    [`https://hooks.example.com/${"a".repeat(2048)}`, /longer than 2048/],
  ])("refuses %j, with or without the setting", (raw, words) => {
    expect(refusal(() => checkWebhookUrl(raw, STRICT)).message).toMatch(words);
    expect(refusal(() => checkWebhookUrl(raw, OPEN)).message).toMatch(words);
  });

  it("accepts a URL of exactly 2048 characters and ports 1 and 65535", () => {
    const base = "https://hooks.example.com/";
    expect(checkWebhookUrl(base + "a".repeat(2048 - base.length), STRICT).href).toHaveLength(2048);
    expect(checkWebhookUrl("https://hooks.example.com:1/", STRICT).port).toBe("1");
    expect(checkWebhookUrl("https://hooks.example.com:65535/", STRICT).port).toBe("65535");
  });
});

describe("resolveWebhookTarget", () => {
  const url = new URL("https://hooks.example.com/sms");

  it("returns the address to pin when every address is public", async () => {
    const target = await resolveWebhookTarget(url, {
      ...STRICT,
      lookup: answering("2606:2800:220:1::", "93.184.216.34"),
    });
    expect(target).toEqual<ResolvedAddress>({ address: "2606:2800:220:1::", family: 6 });
  });

  it("asks the lookup for the URL's host", async () => {
    const asked: string[] = [];
    await resolveWebhookTarget(url, {
      ...STRICT,
      lookup: async (host) => {
        asked.push(host);
        return [{ address: "93.184.216.34", family: 4 }];
      },
    });
    expect(asked).toEqual(["hooks.example.com"]);
  });

  it.each([
    ["127.0.0.1", /loopback/],
    ["10.0.0.7", /private/],
    ["169.254.169.254", /metadata/],
    ["168.63.129.16", /metadata/],
    ["100.100.100.200", /metadata/],
    ["::ffff:192.168.0.1", /private/],
    ["fd00:ec2::254", /metadata/],
    ["fd20:ce::254", /metadata/],
    ["fe80::1%eth0", /link-local/],
  ])("refuses when one of the addresses is %s (DNS rebinding)", async (address, words) => {
    const error = await asyncRefusal(() =>
      resolveWebhookTarget(url, { ...STRICT, lookup: answering("93.184.216.34", address) }),
    );
    expect(error.code).toBe("invalid_request");
    expect(error.message).toMatch(words);
    expect(error.message).toContain("hooks.example.com");
  });

  it("returns a private address when private targets are allowed", async () => {
    const target = await resolveWebhookTarget(new URL("http://receiver.test:9000/"), {
      ...OPEN,
      lookup: answering("127.0.0.1", "::1"),
    });
    expect(target).toEqual({ address: "127.0.0.1", family: 4 });
  });

  it("checks the URL again, so a setting turned off since it was stored applies", async () => {
    const stored = checkWebhookUrl("http://10.0.0.5:8080/hook", OPEN);
    const lookup = answering("93.184.216.34");
    expect((await asyncRefusal(() => resolveWebhookTarget(stored, { ...STRICT, lookup }))).message).toMatch(/http/);
    const https = new URL("https://10.0.0.5/hook");
    expect((await asyncRefusal(() => resolveWebhookTarget(https, { ...STRICT, lookup }))).message).toMatch(/private/);
  });

  it("pins an IP-literal host without a lookup", async () => {
    const lookup: HostLookup = () => Promise.reject(new Error("no lookup expected"));
    await expect(resolveWebhookTarget(new URL("https://93.184.216.34/"), { ...STRICT, lookup })).resolves.toEqual({
      address: "93.184.216.34",
      family: 4,
    });
    await expect(resolveWebhookTarget(new URL("https://[2606:2800:220:1::]/"), { ...STRICT, lookup })).resolves.toEqual(
      { address: "2606:2800:220:1::", family: 6 },
    );
  });

  it("turns a failed lookup into a retryable upstream_error naming the host", async () => {
    const lookup: HostLookup = () =>
      Promise.reject(Object.assign(new Error("getaddrinfo ENOTFOUND hooks.example.com"), { code: "ENOTFOUND" }));
    const error = await asyncRefusal(() => resolveWebhookTarget(url, { ...STRICT, lookup }));
    expect(error.code).toBe("upstream_error");
    expect(error.message).toBe("Webhook host hooks.example.com could not be resolved (ENOTFOUND).");
    expect(error.details).toEqual({ field: "url", retryable: true });
  });

  it("treats an empty answer as a failed lookup and a non-address answer as a refusal", async () => {
    const empty = await asyncRefusal(() => resolveWebhookTarget(url, { ...STRICT, lookup: answering() }));
    expect(empty.code).toBe("upstream_error");
    expect(empty.message).toMatch(/no address/);
    const junk = await asyncRefusal(() => resolveWebhookTarget(url, { ...STRICT, lookup: answering("not-an-ip") }));
    expect(junk.code).toBe("invalid_request");
  });

  it("resolves with the system resolver when no lookup is given", async () => {
    const target = await resolveWebhookTarget(new URL("http://localhost:9000/"), OPEN);
    expect(["127.0.0.1", "::1"]).toContain(target.address);
    expect(target.family).toBe(target.address === "::1" ? 6 : 4);
  });
});

describe("SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS", () => {
  it("is off by default and when 0 or false", () => {
    expect(loadConfig({}).allowPrivateWebhooks).toBe(false);
    expect(loadConfig({ SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "0" }).allowPrivateWebhooks).toBe(false);
    expect(loadConfig({ SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "false" }).allowPrivateWebhooks).toBe(false);
  });

  it("is on for 1 or true", () => {
    expect(loadConfig({ SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1" }).allowPrivateWebhooks).toBe(true);
    expect(loadConfig({ SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "TRUE" }).allowPrivateWebhooks).toBe(true);
  });

  it("refuses any other value, naming the variable", () => {
    expect(() => loadConfig({ SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "yes" })).toThrow(ConfigError);
    expect(() => loadConfig({ SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "yes" })).toThrow(
      /SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS/,
    );
  });
});
