// A request body whose text is not UTF-8 (ISO-8859-1's é, the byte E9) is refused, in the
// family's dialect, naming the problem and the field, nothing sent or charged: a JSON body (v2
// 400, legacy -8, voice -6), an urlencoded form and a multipart/form-data text field (legacy -8,
// email -11 as urlencoded, voice -6). A real U+FFFD sent as UTF-8 is read as itself. A form that declares
// ISO-8859-1 (charset=, a part's Content-Type, `_charset_`) is decoded as declared; JSON is UTF-8
// whatever it declares (decision 0186's addendum).
import { beforeAll, expect, it } from "vitest";
import { walletBalances } from "../../src/domain/accounts/ledger.js";
import { base, emailAccount } from "../channels/email/helpers.js";
import { buildVoiceAccount, callParams } from "../channels/voice/helpers.js";
import { describeEachEngine } from "../helpers/engines.js";
import { buildAccount, type TestAccount, type TestGateway, useTestGateway } from "../helpers/gateway.js";
import { sendParams } from "../helpers/legacy.js";

const LATIN1_E = Buffer.from([0xe9]);

/** Bytes of `parts` joined: strings as UTF-8, Buffers as they are. */
function bytes(...parts: (string | Buffer)[]): Buffer {
  return Buffer.concat(parts.map((part) => (typeof part === "string" ? Buffer.from(part, "utf8") : part)));
}

function urlencoded(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) search.append(name, String(value));
  return search.toString();
}

const BOUNDARY = "----switchboard-body-encoding";

/** A multipart/form-data body; each field's value as bytes, with its own part headers when given. */
function multipart(fields: [string, string | Buffer, string?][]): Buffer {
  const pieces: (string | Buffer)[] = [];
  for (const [name, value, type] of fields) {
    pieces.push(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n`);
    if (type) pieces.push(`Content-Type: ${type}\r\n`);
    pieces.push("\r\n", value, "\r\n");
  }
  pieces.push(`--${BOUNDARY}--\r\n`);
  return bytes(...pieces);
}

async function post(t: TestGateway, path: string, type: string, body: Buffer, headers: Record<string, string> = {}) {
  const response = await fetch(`${t.url}${path}`, {
    method: "POST",
    headers: { "content-type": type, ...headers },
    body: new Uint8Array(body),
  });
  const text = await response.text();
  let json: { success?: boolean; message?: string; error?: { code?: string; field?: string } } | undefined;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

async function bodies(t: TestGateway, account: TestAccount): Promise<string[]> {
  const rows = await t.db.store.db
    .selectFrom("messages")
    .select("body")
    .where("account_id", "=", account.id)
    .orderBy("id")
    .execute();
  return rows.map((row) => String(row.body));
}

describeEachEngine("body encoding: text that is not UTF-8 is refused, a declared Latin-1 form decoded", (engine) => {
  const gateway = useTestGateway(engine, { env: { LEGACY_THROTTLE_PER_SECOND: "0" } });
  let sms: TestAccount;

  beforeAll(async () => {
    sms = await buildAccount(gateway());
  });

  it("refuses a v2 JSON body with a byte that is not UTF-8: 400 naming it, nothing sent or charged", async () => {
    const t = gateway();
    const before = await walletBalances(t.db.store.db, sms.id);
    const auth = { authorization: `Bearer ${sms.apiKey}` };
    for (const type of ["application/json", "application/json; charset=iso-8859-1"]) {
      const body = bytes('{"sender_id":"SWBRD","recipient":"9876543210","message":"caf', LATIN1_E, '"}');
      const answer = await post(t, "/api/v2/sms/send", type, body, auth);
      expect({ type, status: answer.status, success: answer.json?.success, code: answer.json?.error?.code }).toEqual({
        type,
        status: 400,
        success: false,
        code: "invalid_request",
      });
      expect(answer.json?.message, type).toMatch(/^The JSON body is not UTF-8 \(byte 60\)/);
      if (type.includes("8859")) expect(answer.json?.message).toMatch(/charset=iso-8859-1 it declares is not read/);
    }
    expect(await bodies(t, sms)).toEqual([]);
    expect(await walletBalances(t.db.store.db, sms.id)).toEqual(before);
    // A U+FFFD the client meant, as UTF-8 (EF BF BD), is text like any other.
    const real = await post(
      t,
      "/api/v2/sms/send",
      "application/json",
      bytes('{"sender_id":"SWBRD","recipient":"9876543210","message":"caf\uFFFD","unicode":true}'),
      auth,
    );
    expect({ status: real.status, success: real.json?.success }, real.text).toEqual({ status: 200, success: true });
    expect(await bodies(t, sms)).toEqual(["caf\uFFFD"]);
  });

  it("refuses a legacy send whose JSON, urlencoded or multipart text is not UTF-8: -8 naming the field", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const before = await walletBalances(t.db.store.db, account.id);
    const params = sendParams(account, { message: undefined });
    const form = urlencoded(params);
    const cases: [string, string, Buffer, RegExp][] = [
      ["urlencoded raw", "application/x-www-form-urlencoded", bytes(form, "&message=caf", LATIN1_E), /"message"/],
      [
        "json",
        "application/json",
        bytes(JSON.stringify(params).slice(0, -1), ',"message":"caf', LATIN1_E, '"}'),
        /^The JSON body is not UTF-8/,
      ],
      [
        "multipart",
        `multipart/form-data; boundary=${BOUNDARY}`,
        multipart([
          ...Object.entries(params).map(([n, v]): [string, string] => [n, v ?? ""]),
          ["message", bytes("caf", LATIN1_E)],
        ]),
        /"message"/,
      ],
      [
        "multipart, part declared UTF-8",
        `multipart/form-data; boundary=${BOUNDARY}`,
        multipart([
          ...Object.entries(params).map(([n, v]): [string, string] => [n, v ?? ""]),
          ["message", bytes("caf", LATIN1_E), "text/plain; charset=utf-8"],
        ]),
        /"message"/,
      ],
      [
        "urlencoded, charset not read",
        "application/x-www-form-urlencoded; charset=shift_jis",
        bytes(form, "&message=Hi"),
        /shift_jis/,
      ],
    ];
    for (const [what, type, body, reason] of cases) {
      const answer = await post(t, "/httpapi/send", type, body);
      expect({ what, status: answer.status, text: answer.text }).toEqual({ what, status: 200, text: "-8" });
      expect(answer.headers.get("x-error-message"), what).toMatch(reason);
      expect(answer.headers.get("x-error-message"), what).toMatch(/not UTF-8|not read here/);
    }
    expect(await bodies(t, account)).toEqual([]);
    expect(await walletBalances(t.db.store.db, account.id)).toEqual(before);
    // The caller comes first: a wrong password with such a text is -7 (as for a percent-escape, decision 0186).
    const wrong = await post(
      t,
      "/httpapi/send",
      "application/x-www-form-urlencoded",
      bytes(urlencoded({ ...params, password: "not-it" }), "&message=caf", LATIN1_E),
    );
    expect(wrong.text).toBe("-7");
  });

  it("reads a real U+FFFD as itself, and a form declared ISO-8859-1 as Latin-1 (Windows-1252)", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const params = sendParams(account, { message: undefined });
    const form = urlencoded(params);
    const sent: [string, string, Buffer][] = [
      ["urlencoded U+FFFD", "application/x-www-form-urlencoded", bytes(form, `&text=${encodeURIComponent("a\uFFFD")}`)],
      [
        "multipart U+FFFD",
        `multipart/form-data; boundary=${BOUNDARY}`,
        multipart([...Object.entries(params).map(([n, v]): [string, string] => [n, v ?? ""]), ["text", "b\uFFFD"]]),
      ],
      [
        "urlencoded latin-1 raw",
        "application/x-www-form-urlencoded; charset=ISO-8859-1",
        bytes(form, "&text=caf", LATIN1_E),
      ],
      [
        "urlencoded latin-1 escaped",
        "application/x-www-form-urlencoded; charset=iso-8859-1",
        bytes(form, "&text=d%E9j%E0 %93vu%94"),
      ],
      [
        "multipart part latin-1",
        `multipart/form-data; boundary=${BOUNDARY}`,
        multipart([
          ...Object.entries(params).map(([n, v]): [string, string] => [n, v ?? ""]),
          ["text", bytes("na", Buffer.from([0xef]), "ve"), "text/plain; charset=ISO-8859-1"],
        ]),
      ],
      [
        "multipart _charset_",
        `multipart/form-data; boundary=${BOUNDARY}`,
        multipart([
          ["_charset_", "windows-1252"],
          ...Object.entries(params).map(([n, v]): [string, string] => [n, v ?? ""]),
          ["text", bytes("r", LATIN1_E, "sum", LATIN1_E, " ", Buffer.from([0x80]))],
        ]),
      ],
    ];
    for (const [what, type, body] of sent) {
      const answer = await post(t, "/httpapi/send", type, body);
      expect(answer.text, `${what}: ${answer.headers.get("x-error-message")}`).toMatch(/^\d+_\d{8}_\d+$/);
    }
    expect(await bodies(t, account)).toEqual([
      "a\uFFFD",
      "b\uFFFD",
      "café",
      "déjà \u201Cvu\u201D",
      "naïve",
      "résumé €",
    ]);
  });

  it("refuses such text on the email (-11) and voice (-6) families, and reads a declared Latin-1 email form", async () => {
    const t = gateway();
    const email = await emailAccount(t);
    const voice = await buildVoiceAccount(t);
    const emailBefore = await walletBalances(t.db.store.db, email.id);
    const voiceBefore = await walletBalances(t.db.store.db, voice.id);
    const mail = urlencoded({ ...base(email), subject: undefined });
    const refused: [string, string, string, Buffer, string][] = [
      [
        "email urlencoded",
        "/httpemailapi/v1/send",
        "application/x-www-form-urlencoded",
        bytes(mail, "&subject=caf", LATIN1_E),
        "-11",
      ],
      [
        "voice form",
        "/voicecall/v1/post/send",
        "application/x-www-form-urlencoded",
        bytes(urlencoded({ ...callParams(voice), text: undefined }), "&text=caf", LATIN1_E),
        "-6",
      ],
      [
        "voice multipart",
        "/voicecall/v1/post/send",
        `multipart/form-data; boundary=${BOUNDARY}`,
        multipart([
          ...Object.entries({ ...callParams(voice), text: undefined }).flatMap(([n, v]): [string, string][] =>
            v === undefined ? [] : [[n, String(v)]],
          ),
          ["text", bytes("caf", LATIN1_E)],
        ]),
        "-6",
      ],
      [
        "voice json",
        "/voicecall/v1/jpost/send",
        "application/json",
        bytes(JSON.stringify({ ...callParams(voice), text: undefined }).slice(0, -1), ',"text":"caf', LATIN1_E, '"}'),
        "-6",
      ],
    ];
    for (const [what, path, type, body, code] of refused) {
      const answer = await post(t, path, type, body);
      expect({ what, status: answer.status, text: answer.text }).toEqual({ what, status: 200, text: code });
    }
    // The query too, as the legacy family's: `caf%E9` was spoken and mailed as its escapes, and charged.
    const queries: [string, string, string][] = [
      ["voice GET", `/voicecall/v1/send?${urlencoded({ ...callParams(voice), text: undefined })}&text=caf%E9`, "-6"],
      ["email GET", `/httpemailapi/v1/send?${mail}&subject=caf%E9`, "-11"],
      ["email POST, the query's", `/httpemailapi/v1/send?subject=caf%E9`, "-11"],
    ];
    for (const [what, target, code] of queries) {
      const answer = await fetch(
        `${t.url}${target}`,
        what.includes("POST")
          ? { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: mail }
          : {},
      );
      expect({ what, status: answer.status, text: await answer.text() }).toEqual({ what, status: 200, text: code });
    }
    expect(await walletBalances(t.db.store.db, email.id)).toEqual(emailBefore);
    expect(await walletBalances(t.db.store.db, voice.id)).toEqual(voiceBefore);
    const declared = await post(
      t,
      "/httpemailapi/v1/send",
      "application/x-www-form-urlencoded; charset=iso-8859-1",
      bytes(mail, "&subject=caf", LATIN1_E),
    );
    expect(declared.text).toMatch(/^\d+_\d{8}_\d+$/);
    const content = await t.db.store.db
      .selectFrom("email_contents")
      .select("subject")
      .where("broadcast_id", "=", declared.text)
      .executeTakeFirstOrThrow();
    expect(content.subject).toBe("café");
  });
});
