// The email family's multipart bodies are bounded (email audit, HIGH): the multipart reader
// reads the socket itself, past Fastify's body limit, and a body of any size was read before
// its refusal, without credentials (a chunked 4 GB upload answered -11 after 3 GB; a
// Content-Length of 200 MB was read whole). Now a Content-Length over the limit and a body
// without one (chunked) are refused before a byte of the body is read, and a file over 10 MB
// stops the reading where it passes the limit instead of at the file's end.
import { expect, it } from "vitest";
import { MAX_MULTIPART_BYTES } from "../../../src/channels/email/routes.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { useTestGateway } from "../../helpers/gateway.js";
import { multipartBody, RawConnection } from "../../helpers/raw-http.js";
import { base, emailAccount } from "./helpers.js";

const SEND = "/httpemailapi/v1/send";
const BOUNDARY = "----sbLimits";
/** The opening of a file part: the bytes of a body sent before the file's content. */
const FILE_PART_HEAD =
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="attachment"; filename="a.bin"\r\n` +
  "Content-Type: application/octet-stream\r\n\r\n";

function head(headers: Record<string, string>): string {
  const lines = Object.entries({
    host: "127.0.0.1",
    "content-type": `multipart/form-data; boundary=${BOUNDARY}`,
    ...headers,
  })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  return `POST ${SEND} HTTP/1.1\r\n${lines}\r\n`;
}

describeEachEngine("email API body limits", (engine) => {
  const gateway = useTestGateway(engine);

  it("refuses a Content-Length over the limit before reading the body, and closes the connection", async () => {
    const t = gateway();
    for (const length of [MAX_MULTIPART_BYTES + 1, 200 * 1024 * 1024, 4_000_000_000]) {
      const connection = await RawConnection.open(t.url);
      try {
        // Only the head and the opening of the file are sent: the answer must not wait for the rest.
        const answer = await connection.exchange(head({ "content-length": String(length) }), FILE_PART_HEAD, 3_000);
        expect([length, answer.status, answer.body]).toEqual([length, 200, "-11"]);
        await expect.poll(() => connection.isClosed, { timeout: 3_000 }).toBe(true);
      } finally {
        connection.close();
      }
    }
  });

  it("refuses a chunked multipart body (no Content-Length) at once, and closes the connection", async () => {
    const t = gateway();
    const connection = await RawConnection.open(t.url);
    try {
      const chunk = Buffer.concat([Buffer.from(FILE_PART_HEAD), Buffer.alloc(64 * 1024)]);
      const framed = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]);
      // The body never ends: an endless upload must be answered, not read.
      const answer = await connection.exchange(head({ "transfer-encoding": "chunked" }), framed, 3_000);
      expect([answer.status, answer.body]).toEqual([200, "-11"]);
      await expect.poll(() => connection.isClosed, { timeout: 3_000 }).toBe(true);
    } finally {
      connection.close();
    }
  });

  it("stops reading a file where it passes 10 MB, not at the file's end", async () => {
    const t = gateway();
    const account = await emailAccount(t);
    const { body, contentType } = multipartBody(
      base(account),
      [{ field: "attachment", filename: "big.bin", content: Buffer.alloc(12 * 1024 * 1024) }],
      BOUNDARY,
    );
    expect(body.length).toBeLessThanOrEqual(MAX_MULTIPART_BYTES);
    const connection = await RawConnection.open(t.url);
    try {
      // 10.5 MB of the 12 MB file are sent, and no more: the refusal may not wait for the rest.
      const sent = body.subarray(0, body.length - 1_536 * 1024);
      const answer = await connection.exchange(
        head({ "content-type": contentType, "content-length": String(body.length) }),
        sent,
        5_000,
      );
      expect([answer.status, answer.body]).toEqual([200, "-11"]);
    } finally {
      connection.close();
    }
    const messages = await t.db.store.db
      .selectFrom("messages")
      .select("id")
      .where("account_id", "=", account.id)
      .execute();
    expect(messages).toHaveLength(0);
  });

  it("still takes attachments up to 10 MB together, on a kept-alive connection", async () => {
    const t = gateway();
    const account = await emailAccount(t);
    const files = [
      { field: "attachment", filename: "a.pdf", content: Buffer.alloc(5 * 1024 * 1024, 1), type: "application/pdf" },
      { field: "attachment", filename: "b.bin", content: Buffer.alloc(5 * 1024 * 1024 - 1, 2) },
    ];
    const { body, contentType } = multipartBody({ ...base(account), html: "h".repeat(1024 * 1024) }, files);
    const connection = await RawConnection.open(t.url);
    try {
      const answer = await connection.request("POST", SEND, { headers: { "content-type": contentType }, body });
      expect(answer.body).toMatch(/^\d+_\d{8}_\d+$/);
      expect((await connection.request("GET", "/healthz")).status).toBe(200);
    } finally {
      connection.close();
    }
  });
});
