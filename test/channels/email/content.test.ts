// A send's content as the connectors read it: attachments byte for byte, the DKIM key of the
// from domain only when that account's domain is approved, the cache in front, and new keys.
import { createPrivateKey, createPublicKey, sign, verify } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  EmailContentCache,
  generateDkimKey,
  loadEmailContents,
  newDkimKey,
} from "../../../src/channels/email/content.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";
import { addSendingDomain, buildEmailAccount, storeContent } from "./helpers.js";

describeEachEngine("email contents", (engine) => {
  let t: TestDatabase;
  let shop: number;
  let other: number;

  beforeAll(async () => {
    t = await createTestDatabase(engine);
    shop = await buildEmailAccount(t.store);
    other = await buildEmailAccount(t.store);
    await addSendingDomain(t.store.db, shop, "shop.example.com", "approved", "s1");
    await addSendingDomain(t.store.db, shop, "pending.example.com", "pending");
    // Another account's approved key for the same domain must never sign the shop's mail.
    await addSendingDomain(t.store.db, other, "elsewhere.example.com", "approved");
  });
  afterAll(async () => {
    await t.drop();
  });

  it("loads a send with its attachments in order and its from domain's approved key", async () => {
    const pdf = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0x80, 0x0a, 0x0d]);
    const zeros = Buffer.alloc(5000);
    const id = await storeContent(t.store.db, shop, {
      from: "News@Shop.Example.com",
      to: ["ann@example.org", "bob@example.org"],
      cc: ["cat@example.org"],
      replyTo: "help@shop.example.com",
      trackOpens: true,
      attachments: [
        { filename: "invoice.pdf", contentType: "application/pdf", data: pdf },
        { filename: "zeros.bin", contentType: "application/octet-stream", data: zeros },
      ],
    });
    const content = (await loadEmailContents(t.store.db, [id, id, 999_999])).get(id);
    expect(content).toMatchObject({
      id,
      accountId: shop,
      fromAddress: "News@Shop.Example.com",
      fromName: "Shop News",
      to: ["ann@example.org", "bob@example.org"],
      cc: ["cat@example.org"],
      replyTo: "help@shop.example.com",
      trackOpens: true,
      trackClicks: false,
      dkim: { domainName: "shop.example.com", keySelector: "s1" },
    });
    expect(content?.dkim?.privateKey).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(content?.attachments.map((a) => [a.filename, a.contentType])).toEqual([
      ["invoice.pdf", "application/pdf"],
      ["zeros.bin", "application/octet-stream"],
    ]);
    expect(content?.attachments[0]?.content.equals(pdf)).toBe(true);
    expect(content?.attachments[1]?.content.equals(zeros)).toBe(true);
  });

  it("has no key for a pending domain, a domain without a row, or another account's domain", async () => {
    const pending = await storeContent(t.store.db, shop, { from: "a@pending.example.com" });
    const unknown = await storeContent(t.store.db, shop, { from: "a@nowhere.example.com" });
    const foreign = await storeContent(t.store.db, shop, { from: "a@elsewhere.example.com" });
    const owners = await storeContent(t.store.db, other, { from: "a@elsewhere.example.com" });
    const contents = await loadEmailContents(t.store.db, [pending, unknown, foreign, owners]);
    expect([pending, unknown, foreign].map((id) => contents.get(id)?.dkim)).toEqual([null, null, null]);
    expect(contents.get(owners)?.dkim?.domainName).toBe("elsewhere.example.com");
  });

  it("caches: loaded once, shared by overlapping reads, forgotten after its time or when pushed out", async () => {
    let now = 1_000;
    const cache = new EmailContentCache(t.store.db, { max: 2, ttlMs: 5_000, now: () => now });
    const a = await storeContent(t.store.db, shop);
    const b = await storeContent(t.store.db, shop);
    const c = await storeContent(t.store.db, shop);
    const [first, second] = await Promise.all([cache.get([a]), cache.get([a, a])]);
    expect(first.get(a)).toBe(second.get(a));

    await t.store.db.deleteFrom("email_contents").where("id", "=", a).execute();
    // Still served from the cache until its time runs out.
    now += 4_000;
    expect((await cache.get([a])).has(a)).toBe(true);
    now += 1_001;
    expect((await cache.get([a])).has(a)).toBe(false);

    // b then c fill the two places; reading b makes c the oldest, so d pushes c out.
    await cache.get([b, c]);
    await cache.get([b]);
    const d = await storeContent(t.store.db, shop);
    await cache.get([d]);
    await t.store.db.deleteFrom("email_contents").where("id", "in", [b, c]).execute();
    const after = await cache.get([b, c, d]);
    expect([after.has(b), after.has(c), after.has(d)]).toEqual([true, false, true]);
  });

  it("does not keep a content larger than its byte budget", async () => {
    const cache = new EmailContentCache(t.store.db, { maxBytes: 1000 });
    const big = await storeContent(t.store.db, shop, {
      attachments: [{ filename: "big.bin", contentType: "application/octet-stream", data: Buffer.alloc(2000) }],
    });
    expect((await cache.get([big])).has(big)).toBe(true);
    await t.store.db.deleteFrom("email_contents").where("id", "=", big).execute();
    expect((await cache.get([big])).has(big)).toBe(false);
  });
});

it.each([
  ["on the calling thread", async () => generateDkimKey()],
  ["on libuv's pool, as routes make it before their transaction", () => newDkimKey()],
])("makes an RSA 2048 DKIM key whose DNS record carries its public half, %s", async (_how, make) => {
  const key = await make();
  expect(key.privateKey).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
  expect(key.publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
  const match = /^v=DKIM1; k=rsa; p=([A-Za-z0-9+/=]+)$/.exec(key.dnsTxt);
  expect(match).not.toBeNull();
  const published = createPublicKey({ key: Buffer.from(match![1]!, "base64"), format: "der", type: "spki" });
  expect(published.asymmetricKeyDetails?.modulusLength).toBe(2048);
  const signature = sign("sha256", Buffer.from("hello"), createPrivateKey(key.privateKey));
  expect(verify("sha256", Buffer.from("hello"), published, signature)).toBe(true);
  expect(generateDkimKey().dnsTxt).not.toBe(key.dnsTxt);
});
