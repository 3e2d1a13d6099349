// An account's WhatsApp settings: whether the module is on, which connector serves it, the
// connected business account (phone number id, WABA id, access token) and its test numbers.
import type { Clock } from "../../base/core/clock.js";
import { parseE164 } from "../../base/core/e164.js";
import { GatewayError } from "../../base/core/errors.js";
import type { WhatsAppAccountsTable } from "../../base/store/schema.js";
import type { Db, Store } from "../../base/store/store.js";
import { type Audited, recordChange } from "../../domain/audit/index.js";

export const WHATSAPP_CONNECTORS = ["simulator", "whatsapp-cloud"] as const;
export type WhatsAppConnectorName = (typeof WHATSAPP_CONNECTORS)[number];
/** A test (sandbox) sender may have as many recipients as Meta allows a test number. */
export const MAX_TEST_NUMBERS = 50;

export interface WhatsAppSettings {
  accountId: number;
  enabled: boolean;
  /** The connector serving the account (its own, else the gateway's default). */
  connector: WhatsAppConnectorName;
  /** Whether the account names its connector (false: it follows WHATSAPP_CONNECTOR). */
  connectorIsOwn: boolean;
  phoneNumberId: string | null;
  displayPhoneNumber: string | null;
  wabaId: string | null;
  accessToken: string | null;
  sandbox: boolean;
  testNumbers: string[];
  templatesSyncedAt: number | null;
}

/** The business account a send goes out from, once onboarding is complete. */
export interface WhatsAppSender {
  phoneNumberId: string;
  wabaId: string;
  accessToken: string;
}

export function senderOf(settings: WhatsAppSettings): WhatsAppSender | undefined {
  const { phoneNumberId, wabaId, accessToken } = settings;
  return phoneNumberId && wabaId && accessToken ? { phoneNumberId, wabaId, accessToken } : undefined;
}

export async function whatsAppSettingsOf(
  db: Db,
  accountId: number,
  defaultConnector: WhatsAppConnectorName,
): Promise<WhatsAppSettings> {
  const row = await db
    .selectFrom("whatsapp_accounts")
    .selectAll()
    .where("account_id", "=", accountId)
    .executeTakeFirst();
  return toSettings(accountId, row, defaultConnector);
}

/** The account whose connected phone number Meta's callback names. */
export async function accountOfPhoneNumber(db: Db, phoneNumberId: string): Promise<number | undefined> {
  const row = await db
    .selectFrom("whatsapp_accounts")
    .select("account_id")
    .where("phone_number_id", "=", phoneNumberId)
    .executeTakeFirst();
  return row?.account_id;
}

function toSettings(
  accountId: number,
  row: WhatsAppAccountsTable | undefined,
  defaultConnector: WhatsAppConnectorName,
): WhatsAppSettings {
  const own = row?.connector as WhatsAppConnectorName | null | undefined;
  return {
    accountId,
    enabled: row?.enabled === 1,
    connector: own ?? defaultConnector,
    connectorIsOwn: own !== null && own !== undefined,
    phoneNumberId: row?.phone_number_id ?? null,
    displayPhoneNumber: row?.display_phone_number ?? null,
    wabaId: row?.waba_id ?? null,
    accessToken: row?.access_token ?? null,
    sandbox: row?.sandbox === 1,
    testNumbers: row ? (JSON.parse(row.test_numbers) as string[]) : [],
    templatesSyncedAt: row?.templates_synced_at ?? null,
  };
}

export interface WhatsAppSettingsChange {
  enabled?: boolean;
  /** null: follow the gateway's default. */
  connector?: WhatsAppConnectorName | null;
  phone_number_id?: string | null;
  display_phone_number?: string | null;
  waba_id?: string | null;
  access_token?: string | null;
  sandbox?: boolean;
  test_numbers?: string[];
}

/** Normalises test numbers; each must be digits with a country code. */
export function normalizeTestNumbers(numbers: readonly string[]): string[] {
  if (numbers.length > MAX_TEST_NUMBERS) {
    throw new GatewayError("invalid_request", `At most ${MAX_TEST_NUMBERS} test numbers.`, { field: "test_numbers" });
  }
  const out = new Set<string>();
  for (const raw of numbers) {
    const parsed = parseE164(raw);
    if (!parsed) {
      throw new GatewayError(
        "invalid_request",
        `Test number "${raw}" is not a valid number with its country code (e.g. 919876543210).`,
        { field: "test_numbers" },
      );
    }
    out.add(parsed.digits);
  }
  return [...out];
}

/** Applies a change; a phone number id already connected to another account is a 409. */
export async function updateWhatsAppSettings(
  db: Db,
  clock: Clock,
  accountId: number,
  change: WhatsAppSettingsChange,
): Promise<void> {
  const now = clock.now().getTime();
  const values: Partial<WhatsAppAccountsTable> & { updated_at: number } = { updated_at: now };
  if (change.enabled !== undefined) values.enabled = change.enabled ? 1 : 0;
  if (change.connector !== undefined) values.connector = change.connector;
  if (change.phone_number_id !== undefined) values.phone_number_id = change.phone_number_id;
  if (change.display_phone_number !== undefined) values.display_phone_number = change.display_phone_number;
  if (change.waba_id !== undefined) values.waba_id = change.waba_id;
  if (change.access_token !== undefined) values.access_token = change.access_token;
  if (change.sandbox !== undefined) values.sandbox = change.sandbox ? 1 : 0;
  if (change.test_numbers !== undefined)
    values.test_numbers = JSON.stringify(normalizeTestNumbers(change.test_numbers));
  // Another business account's templates are not this one's: sync again on the next look.
  if (change.waba_id !== undefined || change.connector !== undefined) values.templates_synced_at = null;
  if (change.phone_number_id) {
    const holder = await accountOfPhoneNumber(db, change.phone_number_id);
    if (holder !== undefined && holder !== accountId) {
      throw new GatewayError("conflict", "This phone number id is connected to another account.", {
        field: "phone_number_id",
      });
    }
  }
  await db
    .insertInto("whatsapp_accounts")
    .values({
      account_id: accountId,
      enabled: 0,
      connector: null,
      phone_number_id: null,
      display_phone_number: null,
      waba_id: null,
      access_token: null,
      sandbox: 0,
      test_numbers: "[]",
      templates_synced_at: null,
      created_at: now,
      ...values,
    })
    .onConflict((oc) => oc.column("account_id").doUpdateSet(values))
    .execute();
}

/** The settings as the APIs show them: the access token is never echoed, only whether one is set. */
export function describeWhatsAppSettings(settings: WhatsAppSettings, iso: (ms: number) => string) {
  return {
    enabled: settings.enabled,
    connector: settings.connector,
    connector_is_default: !settings.connectorIsOwn,
    business_account_connected: senderOf(settings) !== undefined,
    phone_number_id: settings.phoneNumberId,
    display_phone_number: settings.displayPhoneNumber,
    waba_id: settings.wabaId,
    access_token_set: settings.accessToken !== null,
    sandbox: settings.sandbox,
    test_numbers: settings.testNumbers,
    templates_synced_at: settings.templatesSyncedAt === null ? null : iso(settings.templatesSyncedAt),
  };
}

/** The settings as the audit log keeps them: the connector the account names (null: the default), never the access token. */
function auditedSettings(settings: WhatsAppSettings): Record<string, unknown> {
  return {
    enabled: settings.enabled,
    connector: settings.connectorIsOwn ? settings.connector : null,
    phone_number_id: settings.phoneNumberId,
    display_phone_number: settings.displayPhoneNumber,
    waba_id: settings.wabaId,
    access_token_set: settings.accessToken !== null,
    sandbox: settings.sandbox,
    test_numbers: settings.testNumbers,
  };
}

/**
 * The operator's change (PUT /admin/api/accounts/{username}/whatsapp), audited in the same
 * transaction as `whatsapp.update` with the settings that changed, as they were and are; a new
 * access token is `access_token_changed: true` in `after`, never the token. A change to what they
 * already were writes nothing.
 */
export async function updateWhatsAppSettingsFor(
  store: Store,
  who: Audited,
  account: { id: number; username: string },
  change: WhatsAppSettingsChange,
  defaultConnector: WhatsAppConnectorName,
): Promise<void> {
  await store.transaction(async (trx) => {
    const was = await whatsAppSettingsOf(trx, account.id, defaultConnector);
    await updateWhatsAppSettings(trx, who.clock, account.id, change);
    const is = await whatsAppSettingsOf(trx, account.id, defaultConnector);
    const [before, after] = [auditedSettings(was), auditedSettings(is)];
    const fields = Object.keys(after).filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]));
    const tokenChanged = was.accessToken !== is.accessToken;
    if (fields.length === 0 && !tokenChanged) return;
    await recordChange(trx, who, {
      action: "whatsapp.update",
      target: `WhatsApp settings of ${account.username}`,
      accountId: account.id,
      before: Object.fromEntries(fields.map((key) => [key, before[key]])),
      after: {
        ...Object.fromEntries(fields.map((key) => [key, after[key]])),
        ...(tokenChanged ? { access_token_changed: true } : {}),
      },
    });
  });
}
