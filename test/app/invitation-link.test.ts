// An invitation's link is built from PUBLIC_URL, never from a Host header the client forged
// (decision 0175), through the real server on both engines: unset, a request to a loopback
// address gets a link to it, one with any other Host is refused 400 before the user is added or
// an invitation sent again; set, every link starts with it, whatever the Host.
import { request as httpRequest } from "node:http";
import { beforeAll, describe, expect, it } from "vitest";
import { describeEachEngine } from "../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../helpers/gateway.js";

/** A JSON request to the gateway with the Host header `host` (fetch will not send a forged one). */
function withHost(
  t: TestGateway,
  key: string,
  method: string,
  path: string,
  host: string,
  json?: unknown,
): Promise<{
  status: number;
  body: { data?: Record<string, unknown>; error?: Record<string, unknown>; message?: string };
}> {
  const body = json === undefined ? undefined : JSON.stringify(json);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${t.url}${path}`,
      {
        method,
        headers: {
          host,
          authorization: `Bearer ${key}`,
          ...(body !== undefined ? { "content-type": "application/json" } : {}),
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const invitationOf = (answer: { body: { data?: Record<string, unknown> } }) =>
  (answer.body.data?.invitation as { url: string } | undefined)?.url ?? "";

describeEachEngine("an invitation's link", (engine) => {
  describe("without PUBLIC_URL", () => {
    const gateway = useTestGateway(engine);
    let t: TestGateway;
    let shop: TestAccount;
    let operator: TestAccount;

    beforeAll(async () => {
      t = gateway();
      shop = await buildAccount(t);
      operator = await buildAccount(t, { role: "operator", sender: null });
    });

    it("refuses a forged Host before the user is added, and an invitation sent again", async () => {
      const forged = await withHost(t, shop.apiKey, "POST", "/api/v2/users", "evil.example", {
        login: "vic",
        user_role: "support",
        email: "vic@example.com",
      });
      expect(forged.status).toBe(400);
      expect(forged.body.error).toMatchObject({ code: "invalid_request" });
      expect(String(forged.body.message)).toContain("PUBLIC_URL");
      const users = await call(t, "GET", "/api/v2/users", { headers: { authorization: `Bearer ${shop.apiKey}` } });
      expect(JSON.stringify(users.body.data)).not.toContain('"vic"');

      const made = await withHost(t, shop.apiKey, "POST", "/api/v2/users", new URL(t.url).host, {
        login: "vic",
        user_role: "support",
        email: "vic@example.com",
      });
      expect(made.status).toBe(201);
      expect(invitationOf(made)).toMatch(new RegExp(`^${t.url}/invitation\\?token=`));
      const again = await withHost(t, shop.apiKey, "POST", "/api/v2/users/vic/invitation", "evil.example:8080");
      expect(again.status).toBe(400);
      const staff = await withHost(t, operator.apiKey, "POST", "/admin/api/staff", "evil.example", {
        login: "sam",
        user_role: "operator_support",
      });
      expect(staff.status).toBe(400);
    });

    it("builds the link from a loopback Host, by name too, and needs none for a user with a password", async () => {
      const port = new URL(t.url).port;
      const named = await withHost(t, shop.apiKey, "POST", "/api/v2/users", `localhost:${port}`, {
        login: "lou",
        user_role: "support",
      });
      expect(named.status).toBe(201);
      expect(invitationOf(named)).toMatch(new RegExp(`^http://localhost:${port}/invitation\\?token=`));
      const withPassword = await withHost(t, shop.apiKey, "POST", "/api/v2/users", "evil.example", {
        login: "pia",
        user_role: "support",
        password: "pia-password-1",
      });
      expect(withPassword.status).toBe(201);
    });
  });

  describe("with PUBLIC_URL", () => {
    const gateway = useTestGateway(engine, { env: { PUBLIC_URL: "https://console.example.com/" } });
    let t: TestGateway;
    let shop: TestAccount;

    beforeAll(async () => {
      t = gateway();
      shop = await buildAccount(t);
    });

    it("starts every link with it, whatever the Host", async () => {
      for (const [login, host] of [
        ["ann", "evil.example"],
        ["bo", new URL(t.url).host],
      ] as const) {
        const made = await withHost(t, shop.apiKey, "POST", "/api/v2/users", host, { login, user_role: "support" });
        expect(made.status).toBe(201);
        expect(invitationOf(made)).toMatch(/^https:\/\/console\.example\.com\/invitation\?token=/);
      }
      const again = await withHost(t, shop.apiKey, "POST", "/api/v2/users/ann/invitation", "evil.example");
      expect(again.status).toBe(201);
      expect(invitationOf(again)).toMatch(/^https:\/\/console\.example\.com\/invitation\?token=/);
    });
  });
});
