// The MACs of the open pixel, the click redirect and the one-click unsubscribe link are
// compared as they were written. They were base64url-decoded first, and Node's decoder skips
// characters outside the alphabet (`=`, a `%00` decoded to NUL), reads `+` and `/` as `-` and
// `_`, and ignores the last character's four spare bits: /e/u/{id}/{mac} with its last letter
// changed (A..P share their top two bits), `==` or `%00` added, or `-` written `+` still
// unsubscribed, and likewise the pixel recorded an open and the link redirected.
import { expect, it } from "vitest";
import { EmailTracker, trackingSecret } from "../../../src/channels/email/tracking.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { RawConnection } from "../../helpers/raw-http.js";
import { base, emailAccount, postEmail } from "./helpers.js";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** Other spellings of `mac` that decode to the same bytes (or that a lenient decoder reads so). */
function respellings(mac: string): string[] {
  const out = new Set<string>();
  for (const last of ALPHABET) out.add(mac.slice(0, -1) + last);
  out.add(mac.replace(/-/g, "+").replace(/_/g, "/"));
  out.add(`${mac}==`);
  out.add(`${mac}=`);
  out.add(`${mac}%00`);
  out.add(`${mac.slice(0, 5)}%00${mac.slice(5)}`);
  out.add(`${mac.slice(0, 5)}.${mac.slice(5)}`);
  out.add(`${mac}%20`);
  out.delete(mac);
  // Encoded for a path: `/` would be another segment, so it goes as %2F (still a character of the mac).
  return [...out].map((spelling) => spelling.replace(/\//g, "%2F"));
}

async function get(t: TestGateway, path: string) {
  const connection = await RawConnection.open(t.url);
  try {
    return await connection.request("GET", path);
  } finally {
    connection.close();
  }
}

async function tracker(t: TestGateway) {
  return new EmailTracker(await trackingSecret(t.db.store), t.url);
}

async function opens(t: TestGateway, messageId: string) {
  const rows = await t.db.store.db
    .selectFrom("email_events")
    .select("kind")
    .where("message_id", "=", messageId)
    .where("kind", "=", "opened")
    .execute();
  return rows.length;
}

describeEachEngine("email link MACs", (engine) => {
  const gateway = useTestGateway(engine);

  async function sendTo(t: TestGateway, count: number) {
    const account = await emailAccount(t, 100);
    const to = Array.from({ length: count }, (_, i) => `r${i}@example.org`).join(", ");
    const sent = await postEmail(t, { ...base(account), to, trackopens: "1", trackclicks: "1" });
    expect(sent.text).toMatch(/^\d+_\d{8}_\d+$/);
    const rows = await t.db.store.db
      .selectFrom("messages")
      .select("id")
      .where("account_id", "=", account.id)
      .orderBy("id")
      .execute();
    expect(rows).toHaveLength(count);
    return rows.map((row) => row.id);
  }

  it("answers 404 to an unsubscribe link spelled otherwise, and shows the page for the right one", async () => {
    const t = gateway();
    const ids = await sendTo(t, 20);
    const signer = await tracker(t);
    let withDashOrUnderscore = 0;
    for (const id of ids) {
      const path = new URL(signer.unsubscribeUrl(id)).pathname;
      const mac = path.split("/").at(-1)!;
      if (/[-_]/.test(mac)) withDashOrUnderscore += 1;
      for (const spelling of respellings(mac)) {
        const answer = await get(t, `/e/u/${id}/${spelling}`);
        expect([spelling, answer.status]).toEqual([spelling, 404]);
      }
      const right = await get(t, path);
      expect(right.status).toBe(200);
      expect(right.body).toContain("Unsubscribe");
    }
    // The `+` and `/` spellings were tried on some MAC (20 MACs of 22 characters).
    expect(withDashOrUnderscore).toBeGreaterThan(0);
  });

  it("redirects only the click link as signed", async () => {
    const t = gateway();
    const [id] = await sendTo(t, 1);
    const signer = await tracker(t);
    const target = "https://shop.example.com/sale";
    // Several message ids, so that some MAC has a `-` or `_` to respell.
    const ids = [id!, ...Array.from({ length: 10 }, (_, i) => `q01M81SSVZ8BWSFFFZ80EAT8${i}TQ`)];
    for (const messageId of ids) {
      const url = new URL(signer.clickUrl(messageId, target));
      const mac = url.pathname.split("/").at(-1)!;
      for (const spelling of respellings(mac)) {
        const answer = await get(t, `/e/c/${messageId}/${spelling}${url.search}`);
        expect([spelling, answer.status]).toEqual([spelling, 404]);
      }
      const right = await get(t, `${url.pathname}${url.search}`);
      expect(right.status).toBe(302);
      expect(right.headers.location).toBe(target);
    }
  });

  it("records an open only for the pixel as signed", async () => {
    const t = gateway();
    const [id] = await sendTo(t, 1);
    const signer = await tracker(t);
    const path = new URL(signer.openPixelUrl(id!)).pathname;
    const mac = path
      .split("/")
      .at(-1)!
      .replace(/\.gif$/, "");
    for (const spelling of respellings(mac)) {
      const answer = await get(t, `/e/o/${id}/${spelling}.gif`);
      // Always the pixel, recording nothing.
      expect([spelling, answer.status, answer.headers["content-type"]]).toEqual([spelling, 200, "image/gif"]);
    }
    expect(await opens(t, id!)).toBe(0);
    expect((await get(t, path)).status).toBe(200);
    expect(await opens(t, id!)).toBe(1);
  });
});
