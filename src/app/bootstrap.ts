// First start on an empty database: an operator login and a demo account that can send
// right away (API key, approved sender ID, DLT registrations, an approved OTP template,
// credits). Printed once; never created again.
import { randomBytes } from "node:crypto";
import type { Clock } from "../base/core/clock.js";
import { isGatewayError } from "../base/core/errors.js";
import type { VoiceConfig } from "../base/runtime/config.js";
import type { Store } from "../base/store/store.js";
import { setUpVoiceDemo } from "../channels/voice/index.js";
import { setUpWhatsAppDemo } from "../channels/whatsapp/index.js";
import { addDltEntity, addDltHeader, addSenderId, createTemplate, hasAnyAccount } from "../domain/accounts/index.js";
import { cliActor } from "../domain/audit/index.js";
import { createAccountWithKey } from "./admin/index.js";

export const DEMO_SENDER_ID = "SWBRD";
/** The demo account's DLT registration: a transactional OTP passes the rules as the README sends it. */
export const DEMO_DLT_ENTITY_ID = "1101160000000000001";
export const DEMO_TEMPLATE = {
  name: "otp",
  content: "Your OTP is {#var#}. Do not share it with anyone.",
  dltTemplateId: "1107160000000000001",
};

export interface BootstrapCredentials {
  operator: { username: string; password: string; api_key: string };
  demo: {
    username: string;
    password: string;
    api_key: string;
    sender_id: string;
    dlt_entity_id: string;
    template: { id: number; content: string; dlt_template_id: string };
    /** What the other channels set up for the demo, as banner lines. */
    channels: string[];
  };
}

function password(): string {
  return randomBytes(12).toString("base64url");
}

/** How an operator who lost the printed credentials makes new ones (README: Quick start). */
export const NEW_CREDENTIALS_HELP = [
  "Lost them? New ones, on the same DATABASE_URL, server running or not:",
  "  npx switchboard keys create --account demo                 (a new API key; admin for the operator)",
  "  npx switchboard accounts set --username demo --password P  (a new password)",
].join("\n");

export async function hasAccounts(store: Store): Promise<boolean> {
  return hasAnyAccount(store.db);
}

/**
 * Seeds an empty database; returns the credentials, or undefined when accounts already exist.
 * `voice` is the server's voice settings: the banner says where calls go (the simulator when absent).
 */
export async function bootstrapIfEmpty(
  store: Store,
  clock: Clock,
  voice?: Pick<VoiceConfig, "connector" | "httpUrl">,
): Promise<BootstrapCredentials | undefined> {
  if (await hasAccounts(store)) return undefined;
  // The first start seeds as the CLI would: the operating-system user and host that started it.
  const deps = { store, clock, actor: cliActor() };
  try {
    const operatorPassword = password();
    const operator = await createAccountWithKey(deps, {
      username: "admin",
      password: operatorPassword,
      role: "operator",
      rateLimit: 0,
    });
    const demoPassword = password();
    const demo = await createAccountWithKey(deps, {
      username: "demo",
      password: demoPassword,
      credits: { sms: 10_000, international: 1_000, whatsapp: 1_000, email: 1_000, voice: 1_000 },
      rateLimit: 0,
    });
    await addSenderId(store.db, clock, demo.id, DEMO_SENDER_ID, { approve: true });
    await addDltEntity(store.db, clock, demo.id, DEMO_DLT_ENTITY_ID);
    await addDltHeader(store.db, clock, demo.id, DEMO_SENDER_ID);
    const template = await createTemplate(store.db, clock, demo.id, {
      ...DEMO_TEMPLATE,
      entityId: DEMO_DLT_ENTITY_ID,
      sender: DEMO_SENDER_ID,
      approve: true,
    });
    const channels = [
      ...(await setUpWhatsAppDemo(store, clock, demo.id)),
      ...(await setUpVoiceDemo(store, clock, demo.id, voice)),
    ];
    return {
      operator: { username: operator.username, password: operatorPassword, api_key: operator.api_key },
      demo: {
        username: demo.username,
        password: demoPassword,
        api_key: demo.api_key,
        sender_id: DEMO_SENDER_ID,
        dlt_entity_id: DEMO_DLT_ENTITY_ID,
        template: { id: template.id, content: template.content, dlt_template_id: DEMO_TEMPLATE.dltTemplateId },
        channels,
      },
    };
  } catch (error) {
    // Another process seeded the same empty database a moment earlier.
    if (isGatewayError(error) && error.code === "conflict") return undefined;
    throw error;
  }
}

export function credentialsBanner(creds: BootstrapCredentials, baseUrl: string): string {
  return [
    "",
    "================ Switchboard first start ================",
    "Operator (operator API /admin/api, CLI):",
    `  username: ${creds.operator.username}`,
    `  password: ${creds.operator.password}`,
    `  api key:  ${creds.operator.api_key}`,
    "Demo account (send with it now):",
    `  username:  ${creds.demo.username}`,
    `  password:  ${creds.demo.password}`,
    `  api key:   ${creds.demo.api_key}`,
    `  sender id: ${creds.demo.sender_id} (approved; DLT header and entity ${creds.demo.dlt_entity_id} white-listed)`,
    `  template:  ${creds.demo.template.content} (approved, DLT template ${creds.demo.template.dlt_template_id})`,
    "  credits:   10000 SMS, 1000 each of international, WhatsApp, email, voice",
    ...creds.demo.channels.map((line) => `  ${line}`),
    `Console: ${baseUrl}/ (sign in as the operator or the demo account)`,
    "Try:",
    `  curl -s ${baseUrl}/api/v2/balance -H "Authorization: Bearer ${creds.demo.api_key}"`,
    `  curl -s ${baseUrl}/api/v2/sms/send -H "Authorization: Bearer ${creds.demo.api_key}" -H "Content-Type: application/json" \\`,
    `    -d '{"sender_id":"${creds.demo.sender_id}","recipient":"9876543210","message":"${creds.demo.template.content.replace("{#var#}", "482913")}"}'`,
    "These are shown once; keep them.",
    NEW_CREDENTIALS_HELP,
    "=========================================================",
    "",
  ].join("\n");
}
