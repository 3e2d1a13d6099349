// An account's verify settings (the operator sets them, the account reads them): the DLT template
// and sender ID of SMS codes, the WhatsApp template, the voice caller ID, the email sender, and
// the escalation order of resends.
import type { Clock } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import type { Db, Store } from "../../base/store/store.js";
import { type Audited, recordChange } from "../../domain/audit/index.js";

export const VERIFY_CHANNELS = ["sms", "whatsapp", "voice", "email"] as const;
export type VerifyChannel = (typeof VERIFY_CHANNELS)[number];
export const DEFAULT_ESCALATION: readonly VerifyChannel[] = ["sms", "whatsapp", "voice"];
export const DEFAULT_COUNTRIES: readonly string[] = ["IN"];

export interface VerifySettings {
  templateId: string | null;
  senderId: string | null;
  whatsappTemplate: string | null;
  callerId: string | null;
  emailFrom: string | null;
  /** The account's order, or the default when it set none. */
  channels: readonly VerifyChannel[];
  /** Whether `channels` is the account's own. */
  channelsSet: boolean;
  /** The countries codes may go to (ISO 3166), default IN. */
  countries: readonly string[];
}

/** The fields of PUT /admin/api/accounts/{username}/verify, as the API names them; null clears one. */
export interface VerifySettingsChange {
  verify_template_id?: string | null;
  verify_sender_id?: string | null;
  verify_whatsapp_template?: string | null;
  verify_caller_id?: string | null;
  verify_email_from?: string | null;
  verify_channels?: string[] | null;
  verify_countries?: string[] | null;
}

export function isVerifyChannel(value: string): value is VerifyChannel {
  return (VERIFY_CHANNELS as readonly string[]).includes(value);
}

export async function verifySettings(db: Db, accountId: number): Promise<VerifySettings> {
  const row = await db.selectFrom("verify_settings").selectAll().where("account_id", "=", accountId).executeTakeFirst();
  const own = row?.channels ? (row.channels.split(",").filter(isVerifyChannel) as VerifyChannel[]) : undefined;
  return {
    templateId: row?.template_id ?? null,
    senderId: row?.sender_id ?? null,
    whatsappTemplate: row?.whatsapp_template ?? null,
    callerId: row?.caller_id ?? null,
    emailFrom: row?.email_from ?? null,
    channels: own ?? DEFAULT_ESCALATION,
    channelsSet: own !== undefined,
    countries: row?.countries ? row.countries.split(",") : DEFAULT_COUNTRIES,
  };
}

function checkedChannels(channels: string[]): string {
  if (channels.length === 0 || channels.length > VERIFY_CHANNELS.length) {
    throw new GatewayError("invalid_request", "verify_channels names 1 to 4 channels.", { field: "verify_channels" });
  }
  for (const channel of channels) {
    if (!isVerifyChannel(channel)) {
      throw new GatewayError(
        "invalid_request",
        `verify_channels: "${channel}" is not one of ${VERIFY_CHANNELS.join(", ")}.`,
        { field: "verify_channels" },
      );
    }
  }
  if (new Set(channels).size !== channels.length) {
    throw new GatewayError("invalid_request", "verify_channels names a channel twice.", { field: "verify_channels" });
  }
  return channels.join(",");
}

function checkedCountries(countries: string[]): string {
  if (countries.length === 0 || countries.length > 250) {
    throw new GatewayError("invalid_request", "verify_countries names 1 to 250 countries.", {
      field: "verify_countries",
    });
  }
  const codes = countries.map((code) => code.trim().toUpperCase());
  const bad = codes.find((code) => !/^[A-Z]{2}$/.test(code));
  if (bad !== undefined) {
    throw new GatewayError(
      "invalid_request",
      `verify_countries: "${bad}" is not an ISO 3166 country code of two letters (e.g. IN).`,
      { field: "verify_countries" },
    );
  }
  return [...new Set(codes)].join(",");
}

/** Changes the fields named (null clears one); the others stay. */
export async function changeVerifySettings(
  db: Db,
  clock: Clock,
  accountId: number,
  change: VerifySettingsChange,
): Promise<VerifySettings> {
  const columns = {
    ...(change.verify_template_id !== undefined ? { template_id: change.verify_template_id } : {}),
    ...(change.verify_sender_id !== undefined ? { sender_id: change.verify_sender_id } : {}),
    ...(change.verify_whatsapp_template !== undefined ? { whatsapp_template: change.verify_whatsapp_template } : {}),
    ...(change.verify_caller_id !== undefined ? { caller_id: change.verify_caller_id } : {}),
    ...(change.verify_email_from !== undefined ? { email_from: change.verify_email_from } : {}),
    ...(change.verify_channels !== undefined
      ? { channels: change.verify_channels === null ? null : checkedChannels(change.verify_channels) }
      : {}),
    ...(change.verify_countries !== undefined
      ? { countries: change.verify_countries === null ? null : checkedCountries(change.verify_countries) }
      : {}),
    updated_at: clock.now().getTime(),
  };
  await db
    .insertInto("verify_settings")
    .values({ account_id: accountId, ...columns })
    .onConflict((oc) => oc.column("account_id").doUpdateSet(columns))
    .execute();
  return verifySettings(db, accountId);
}

/** The settings as the API answers them. */
export function describeVerifySettings(settings: VerifySettings) {
  return {
    verify_template_id: settings.templateId,
    verify_sender_id: settings.senderId,
    verify_whatsapp_template: settings.whatsappTemplate,
    verify_caller_id: settings.callerId,
    verify_email_from: settings.emailFrom,
    verify_channels: [...settings.channels],
    verify_countries: [...settings.countries],
  };
}

/**
 * The operator's change (PUT /admin/api/accounts/{username}/verify), audited in the same
 * transaction as `verify_settings.change` with the fields that changed, as they were and are; a
 * change to what they already were writes nothing.
 */
export async function changeVerifySettingsFor(
  store: Store,
  who: Audited,
  account: { id: number; username: string },
  change: VerifySettingsChange,
): Promise<VerifySettings> {
  return store.transaction(async (trx) => {
    const was: Record<string, unknown> = describeVerifySettings(await verifySettings(trx, account.id));
    const settings = await changeVerifySettings(trx, who.clock, account.id, change);
    const is: Record<string, unknown> = describeVerifySettings(settings);
    const fields = Object.keys(is).filter((key) => JSON.stringify(was[key]) !== JSON.stringify(is[key]));
    if (fields.length > 0) {
      await recordChange(trx, who, {
        action: "verify_settings.change",
        target: `verify settings of ${account.username}`,
        accountId: account.id,
        before: Object.fromEntries(fields.map((key) => [key, was[key]])),
        after: Object.fromEntries(fields.map((key) => [key, is[key]])),
      });
    }
    return settings;
  });
}
