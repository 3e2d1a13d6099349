import { expect, it } from "vitest";
import { groupExists } from "../../../src/domain/contacts/index.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { ISO_UTC, keyOf } from "../../helpers/sms.js";
import { createGroup, expectError, v2 } from "./helpers.js";

async function addNumbers(t: TestGateway, account: TestAccount, groupId: number, numbers: string[]) {
  const added = await v2(t, account, "POST", `/groups/${groupId}/contacts`, numbers);
  expect(added.status, added.text).toBe(200);
  expect(added.body.data.added).toBe(numbers.length);
}

describeEachEngine("v2 contact groups", (engine) => {
  const gateway = useTestGateway(engine);

  it("creates groups, lists them oldest first with their contact counts, and refuses a duplicate name", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const created = await v2(t, account, "POST", "/groups", { name: "  Customers  ", description: "paying ones" });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual({
      status: "success",
      data: {
        id: expect.any(Number),
        name: "Customers",
        description: "paying ones",
        contacts: 0,
        created_at: expect.stringMatching(ISO_UTC),
        updated_at: expect.stringMatching(ISO_UTC),
      },
    });
    const second = await createGroup(t, account, "Leads");
    const third = await v2(t, account, "POST", "/groups", { name: "Staff", description: "   " });
    expect(third.body.data.description).toBeNull();
    await addNumbers(t, account, second, ["9876543210", "9876543211", "9876543212"]);

    const list = await v2(t, account, "GET", "/groups");
    expect(list.status).toBe(200);
    expect(list.body.meta).toEqual({ page: 1, per_page: 25, total: 3, last_page: 1 });
    expect(list.body.data.map((group: { name: string; contacts: number }) => [group.name, group.contacts])).toEqual([
      ["Customers", 0],
      ["Leads", 3],
      ["Staff", 0],
    ]);

    const again = await v2(t, account, "POST", "/groups", { name: "Leads" });
    expectError(again, 409, "conflict");
    expect(again.body.message).toContain("Leads");
    const stranger = await buildAccount(t);
    const theirs = await v2(t, stranger, "POST", "/groups", { name: "Leads" });
    expect(theirs.status, theirs.text).toBe(201);
    expect((await v2(t, stranger, "GET", "/groups")).body.meta.total).toBe(1);
    expect((await v2(t, account, "GET", "/groups")).body.meta.total).toBe(3);
  });

  it("paginates the groups like the templates: page 0 and per_page out of range are 400, past the end is empty", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const ids: number[] = [];
    for (const n of [1, 2, 3, 4, 5]) ids.push(await createGroup(t, account, `group ${n}`));

    const second = await v2(t, account, "GET", "/groups?per_page=2&page=2");
    expect(second.body.data.map((group: { id: number }) => group.id)).toEqual([ids[2], ids[3]]);
    expect(second.body.meta).toEqual({ page: 2, per_page: 2, total: 5, last_page: 3 });
    const last = await v2(t, account, "GET", "/groups?per_page=2&page=3");
    expect(last.body.data.map((group: { id: number }) => group.id)).toEqual([ids[4]]);
    const past = await v2(t, account, "GET", "/groups?per_page=2&page=4");
    expect(past.status).toBe(200);
    expect(past.body).toEqual({ status: "success", data: [], meta: { page: 4, per_page: 2, total: 5, last_page: 3 } });
    expect((await v2(t, account, "GET", "/groups?per_page=100")).body.meta.per_page).toBe(100);

    for (const query of [
      "page=0",
      "per_page=0",
      "per_page=101",
      "per_page=-1",
      "page=abc",
      "page=1.5",
      "per_page=1e2",
    ]) {
      const response = await v2(t, account, "GET", `/groups?${query}`);
      expectError(response, 400, "invalid_request");
      expect(response.body.message).toContain(query.split("=")[0]);
    }
    expect((await v2(t, account, "GET", "/groups?per_page=101")).body.message).toContain("100");
    const empty = await buildAccount(t);
    expect((await v2(t, empty, "GET", "/groups")).body).toEqual({
      status: "success",
      data: [],
      meta: { page: 1, per_page: 25, total: 0, last_page: 1 },
    });
  });

  it("refuses bad group bodies with 400, never 500", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const bodies = [
      {},
      { description: "no name" },
      { name: "" },
      { name: "   " },
      { name: "x".repeat(101) },
      { name: 5 },
      { name: null },
      { name: "ok", description: "d".repeat(501) },
      { name: "ok", extra: true },
      { name: "nul\u0000inside" },
      ["name"],
    ];
    for (const body of bodies) expectError(await v2(t, account, "POST", "/groups", body), 400, "invalid_request");
    const notJson = await call(t, "POST", "/api/v2/groups", {
      headers: { ...keyOf(account), "content-type": "application/json" },
      body: "{nope",
    });
    expectError(notJson, 400, "invalid_json");
    expect((await v2(t, account, "GET", "/groups")).body.meta.total).toBe(0);
    expect((await v2(t, account, "POST", "/groups", { name: "x".repeat(100) })).status).toBe(201);

    for (const [method, path] of [
      ["GET", "/groups"],
      ["POST", "/groups"],
      ["DELETE", "/groups/1"],
      ["GET", "/groups/1/contacts"],
      ["POST", "/groups/1/contacts"],
    ] as const) {
      const anonymous = await call(t, method, `/api/v2${path}`, method === "POST" ? { json: { name: "x" } } : {});
      expectError(anonymous, 401, "unauthorized");
    }
  });

  it("deletes a group with its contacts; unknown, malformed and other accounts' ids are 404", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const stranger = await buildAccount(t);
    const group = await createGroup(t, account, "To delete");
    const kept = await createGroup(t, account, "Kept");
    await addNumbers(t, account, group, ["9876543210", "9876543211"]);
    await addNumbers(t, account, kept, ["9876543210"]);
    const db = t.db.store.db;
    expect(await groupExists(db, account.id, group)).toBe(true);
    expect(await groupExists(db, stranger.id, group)).toBe(false);

    expectError(await v2(t, stranger, "DELETE", `/groups/${group}`), 404, "not_found");
    expectError(await v2(t, stranger, "GET", `/groups/${group}/contacts`), 404, "not_found");
    expectError(await v2(t, stranger, "POST", `/groups/${group}/contacts`, ["9876543219"]), 404, "not_found");
    for (const id of ["999999", "abc", "1.5", "-1", "0", "99999999999999999999"]) {
      expectError(await v2(t, account, "DELETE", `/groups/${id}`), 404, "not_found");
      expectError(await v2(t, account, "GET", `/groups/${id}/contacts`), 404, "not_found");
      expectError(await v2(t, account, "POST", `/groups/${id}/contacts`, ["9876543219"]), 404, "not_found");
    }

    const deleted = await v2(t, account, "DELETE", `/groups/${group}`);
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toEqual({
      status: "success",
      data: { id: group, name: "To delete", deleted: true, contacts_deleted: 2 },
    });
    expect(await groupExists(db, account.id, group)).toBe(false);
    const left = await db.selectFrom("contacts").select("group_id").where("group_id", "in", [group, kept]).execute();
    expect(left.map((row) => Number(row.group_id))).toEqual([kept]);
    expectError(await v2(t, account, "DELETE", `/groups/${group}`), 404, "not_found");
    expectError(await v2(t, account, "GET", `/groups/${group}/contacts`), 404, "not_found");
    const list = await v2(t, account, "GET", "/groups");
    expect(list.body.data.map((row: { name: string; contacts: number }) => [row.name, row.contacts])).toEqual([
      ["Kept", 1],
    ]);
    // The name is free again.
    expect((await v2(t, account, "POST", "/groups", { name: "To delete" })).status).toBe(201);
  });

  it("pages a group's contacts by number: default 50, max 200, page 0 and per_page out of range are 400", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const group = await createGroup(t, account, "Paged");
    const numbers = Array.from({ length: 205 }, (_, i) => String(9_000_000_000 + (204 - i) * 7));
    await addNumbers(t, account, group, numbers);
    const sorted = [...numbers].sort();
    const path = `/groups/${group}/contacts`;

    const first = await v2(t, account, "GET", path);
    expect(first.status).toBe(200);
    expect(first.body.meta).toEqual({ page: 1, per_page: 50, total: 205, last_page: 5 });
    expect(first.body.data).toHaveLength(50);
    expect(first.body.data[0]).toEqual({
      id: expect.any(Number),
      number: sorted[0],
      name: null,
      created_at: expect.stringMatching(ISO_UTC),
    });
    const max = await v2(t, account, "GET", `${path}?per_page=200&page=2`);
    expect(max.body.data.map((row: { number: string }) => row.number)).toEqual(sorted.slice(200));
    expect(max.body.meta).toEqual({ page: 2, per_page: 200, total: 205, last_page: 2 });
    const all: string[] = [];
    for (let page = 1; page <= 5; page += 1) {
      const response = await v2(t, account, "GET", `${path}?page=${page}`);
      all.push(...response.body.data.map((row: { number: string }) => row.number));
    }
    expect(all).toEqual(sorted);
    const past = await v2(t, account, "GET", `${path}?page=6`);
    expect(past.body).toEqual({
      status: "success",
      data: [],
      meta: { page: 6, per_page: 50, total: 205, last_page: 5 },
    });

    for (const query of ["page=0", "per_page=0", "per_page=201", "page=-2", "per_page=ten"]) {
      const response = await v2(t, account, "GET", `${path}?${query}`);
      expectError(response, 400, "invalid_request");
      expect(response.body.message).toContain(query.split("=")[0]);
    }
    expect((await v2(t, account, "GET", `${path}?per_page=201`)).body.message).toContain("200");

    const empty = await createGroup(t, account, "Empty");
    expect((await v2(t, account, "GET", `/groups/${empty}/contacts`)).body).toEqual({
      status: "success",
      data: [],
      meta: { page: 1, per_page: 50, total: 0, last_page: 1 },
    });
  });

  it("shows the routes in the OpenAPI document", async () => {
    const t = gateway();
    const doc = await call(t, "GET", "/api/v2/openapi.json");
    expect(doc.status).toBe(200);
    const paths = doc.body.paths;
    expect(paths["/api/v2/groups"].get.tags).toEqual(["contacts"]);
    expect(paths["/api/v2/groups"].post.summary).toContain("Create a contact group");
    expect(paths["/api/v2/groups/{id}"].delete.summary).toContain("Delete");
    expect(paths["/api/v2/groups/{id}/contacts"].get.summary).toContain("Contacts of a group");
    const upload = paths["/api/v2/groups/{id}/contacts"].post;
    expect(Object.keys(upload.requestBody.content).sort()).toEqual(["application/json", "text/csv"]);
  });
});
