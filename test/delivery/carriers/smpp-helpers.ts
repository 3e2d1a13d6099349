// A session bound to a fresh fake SMSC, stopped after each test.
import { afterEach } from "vitest";
import { SmppSession, type SmppSessionOptions } from "../../../src/delivery/carriers/smpp/session.js";
import { FakeSmsc } from "./fake-smsc.js";

const started: Array<SmppSession | FakeSmsc> = [];

afterEach(async () => {
  for (const running of started.splice(0).reverse()) await running.stop();
});

export async function fakeSmsc(): Promise<FakeSmsc> {
  const smsc = new FakeSmsc();
  await smsc.start();
  started.push(smsc);
  return smsc;
}

export function sessionTo(smsc: FakeSmsc, options: Partial<SmppSessionOptions> = {}): SmppSession {
  const session = new SmppSession({
    host: "127.0.0.1",
    port: smsc.port,
    systemId: smsc.systemId,
    password: smsc.password,
    reconnectInitialMs: 50,
    reconnectMaxMs: 500,
    ...options,
  });
  started.push(session);
  session.start();
  return session;
}

export async function boundSession(
  options: Partial<SmppSessionOptions> = {},
): Promise<{ smsc: FakeSmsc; session: SmppSession }> {
  const smsc = await fakeSmsc();
  const session = sessionTo(smsc, options);
  await session.waitBound(10_000);
  return { smsc, session };
}
