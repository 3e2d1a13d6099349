import http from "node:http";
import { expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, useTestGateway } from "../../helpers/gateway.js";
import { keyOf } from "../../helpers/sms.js";
import { contactsOf, createGroup, expectError, v2 } from "./helpers.js";

describeEachEngine("v2 contacts as JSON", (engine) => {
  const gateway = useTestGateway(engine);

  it("adds numbers in every accepted form, reports duplicates and invalid entries by index", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const group = await createGroup(t, account, "JSON");
    const first = await v2(t, account, "POST", `/groups/${group}/contacts`, [
      "9876543210",
      { number: "+91 98765 43211", name: "  Asha  " },
      9876543212,
      "09876543213",
      "919876543214",
      { number: 919876543215 },
      "98765-43216",
      "+919876543210",
      "12345",
      { number: "9876543217", name: "x".repeat(101) },
      { number: "9876543218", name: "   " },
      "",
      "5876543210",
    ]);
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({
      status: "success",
      data: {
        group_id: group,
        received: 13,
        added: 8,
        duplicates: 1,
        invalid: 4,
        duplicate_entries: [{ index: 7, number: "9876543210" }],
        invalid_entries: [
          { index: 8, value: "12345", reason: "invalid_number" },
          { index: 9, value: "9876543217", reason: "invalid_name" },
          { index: 11, value: "", reason: "invalid_number" },
          { index: 12, value: "5876543210", reason: "invalid_number" },
        ],
      },
    });
    expect(await contactsOf(t, account, group)).toEqual([
      "9876543210",
      "9876543211 Asha",
      "9876543212",
      "9876543213",
      "9876543214",
      "9876543215",
      "9876543216",
      "9876543218",
    ]);

    // Numbers already in the group are duplicates and keep their name; the object form works too.
    const second = await v2(t, account, "POST", `/groups/${group}/contacts`, {
      contacts: [{ number: "9876543211", name: "Other" }, "9876543299", { number: "9876543299", name: "Late" }],
    });
    expect(second.status, second.text).toBe(200);
    expect(second.body.data).toMatchObject({
      received: 3,
      added: 1,
      duplicates: 2,
      invalid: 0,
      duplicate_entries: [
        { index: 0, number: "9876543211" },
        { index: 2, number: "9876543299" },
      ],
    });
    const contacts = await contactsOf(t, account, group);
    expect(contacts).toContain("9876543211 Asha");
    expect(contacts).toContain("9876543299");
    expect(contacts).toHaveLength(9);
    const listed = await v2(t, account, "GET", "/groups");
    expect(listed.body.data[0]).toMatchObject({ id: group, contacts: 9 });

    // Another group of the same account holds the same number independently.
    const other = await createGroup(t, account, "JSON 2");
    const again = await v2(t, account, "POST", `/groups/${other}/contacts`, ["9876543210"]);
    expect(again.body.data).toMatchObject({ added: 1, duplicates: 0 });
  });

  it("refuses malformed JSON bodies with 400 and other content types with 415, adding nothing", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const group = await createGroup(t, account, "Refusals");
    const path = `/groups/${group}/contacts`;
    const bodies: unknown[] = [
      [],
      {},
      { contacts: [] },
      { contacts: ["9876543210"], extra: 1 },
      [true],
      [null],
      [["9876543210"]],
      [{ name: "no number" }],
      [{ number: "9876543210", nickname: "x" }],
      [{ number: null }],
      "9876543210",
      42,
      Array.from({ length: 10_001 }, (_, i) => String(9_000_000_000 + i)),
    ];
    for (const body of bodies) {
      const response = await v2(t, account, "POST", path, body);
      expectError(response, 400, "invalid_request");
    }
    const headers = { ...keyOf(account), "content-type": "application/json" };
    expectError(await call(t, "POST", `/api/v2${path}`, { headers, body: "[9876543210," }), 400, "invalid_json");
    // An empty body is no body (test/base/http/client-habits.test.ts): not the list the route needs.
    expectError(await call(t, "POST", `/api/v2${path}`, { headers, body: "" }), 400, "invalid_request");
    for (const type of ["application/x-www-form-urlencoded", "text/plain", "application/xml"]) {
      const response = await call(t, "POST", `/api/v2${path}`, {
        headers: { ...keyOf(account), "content-type": type },
        body: "number=9876543210",
      });
      expectError(response, 415, "invalid_request");
      expect(response.body.message).toContain("text/csv");
    }
    expectError(await call(t, "POST", `/api/v2${path}`, { headers: keyOf(account) }), 400, "invalid_request");
    expect(await contactsOf(t, account, group)).toEqual([]);

    const most = Array.from({ length: 10_000 }, (_, i) => String(9_000_000_000 + i));
    const accepted = await v2(t, account, "POST", path, most);
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body.data).toMatchObject({ received: 10_000, added: 10_000, duplicates: 0, invalid: 0 });
  });

  it("answers 413 at once to a CSV whose declared length is over the limit", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const group = await createGroup(t, account, "Too big");
    const url = new URL(`${t.url}/api/v2/groups/${group}/contacts`);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = http.request(url, {
        method: "POST",
        headers: { ...keyOf(account), "content-type": "text/csv", "content-length": String(300 * 1024 * 1024) },
      });
      request.on("response", (response) => {
        let body = "";
        response.on("data", (chunk) => {
          body += chunk;
        });
        response.on("end", () => {
          resolve({ status: response.statusCode ?? 0, body });
          request.destroy();
        });
      });
      request.on("error", reject);
      request.write("9876543210\n");
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ status: "error", error: { code: "invalid_request" } });
    // The default CONTACTS_UPLOAD_MAX_MB.
    expect(JSON.parse(answer.body).message).toContain("64 MiB");
    expect(await contactsOf(t, account, group)).toEqual([]);
  });
});
