// The operator API's alert requests and answers (admin-routes.ts) as schemas: the settings of
// each kind, the operator's URL and address, the signing secret and the active alerts. Typebox
// and schema files only: the console types its Alerts page with them.
import { Type } from "typebox";
import { WALLETS } from "../../base/core/wallets.js";
import { NullableNumber, NullableString, OneOf, Time } from "../../base/http/answer-schemas.js";

export const ALERT_KIND_NAMES = ["low_balance", "connector_down", "webhook_failing", "delivery_rate"] as const;

const Enabled = Type.Boolean({ description: "Whether the alert is evaluated (off clears its raised alerts)." });
const Threshold = Type.Number({
  minimum: 0,
  maximum: 1_000_000_000,
  description: "Credits: a wallet below this raises low_balance.",
});
const Seconds = Type.Integer({ minimum: 0, maximum: 604_800 });
const Minutes = Type.Integer({ minimum: 0, maximum: 10_080 });
const Messages = Type.Integer({ minimum: 1, maximum: 10_000 });
const Percent = Type.Number({ exclusiveMinimum: 0, maximum: 100 });
const Wallet = OneOf(WALLETS);
/** A URL's scheme and host are checked against the webhook SSRF guard, as every webhook URL is. */
const Url = Type.Union([Type.String({ minLength: 1, maxLength: 2_000 }), Type.Null()]);
const Email = Type.Union([Type.String({ maxLength: 254, pattern: "^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$" }), Type.Null()]);

/** PUT /admin/api/alerts: any of the fields; the ones left out keep their values. */
export const AlertSettingsRequest = Type.Object(
  {
    url: Type.Optional(Url),
    email: Type.Optional(Email),
    low_balance: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(Enabled),
          threshold: Type.Optional(Type.Union([Threshold, Type.Null()])),
          wallet: Type.Optional(Wallet),
        },
        { additionalProperties: false },
      ),
    ),
    connector_down: Type.Optional(
      Type.Object(
        { enabled: Type.Optional(Enabled), seconds: Type.Optional(Seconds) },
        { additionalProperties: false },
      ),
    ),
    webhook_failing: Type.Optional(
      Type.Object(
        { enabled: Type.Optional(Enabled), minutes: Type.Optional(Minutes) },
        { additionalProperties: false },
      ),
    ),
    delivery_rate: Type.Optional(
      Type.Object(
        { enabled: Type.Optional(Enabled), messages: Type.Optional(Messages), percent: Type.Optional(Percent) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, title: "AlertSettingsRequest" },
);

export const ActiveAlert = Type.Object(
  {
    alert: OneOf(ALERT_KIND_NAMES),
    subject: Type.String({ description: "A username, a connector, or `account:<id> <url>` for an endpoint." }),
    value: NullableNumber({ description: "Balance in credits, deliveries in retry, or delivery rate in %." }),
    detail: Type.String(),
    since: Time,
    raised_at: Time,
  },
  { title: "ActiveAlert" },
);

export const AlertSettings = Type.Object(
  {
    url: NullableString({ description: "The operator's alert URL: raises and clears POSTed, signed." }),
    email: NullableString({ description: "The operator's address: raises and clears mailed (SMTP_URL)." }),
    low_balance: Type.Object({ enabled: Type.Boolean(), threshold: NullableNumber(), wallet: Type.String() }),
    connector_down: Type.Object({ enabled: Type.Boolean(), seconds: Type.Integer() }),
    webhook_failing: Type.Object({ enabled: Type.Boolean(), minutes: Type.Integer() }),
    delivery_rate: Type.Object({ enabled: Type.Boolean(), messages: Type.Integer(), percent: Type.Number() }),
    secret: NullableString({
      description:
        "The secret the alert webhooks are signed with: the webhook secret of the operator account that set the URL.",
    }),
    email_configured: Type.Boolean({ description: "Whether SMTP_URL is set (alert emails need it)." }),
    active: Type.Array(ActiveAlert),
  },
  { title: "AlertSettings" },
);

export const AccountThresholdRequest = Type.Object(
  { threshold: Type.Union([Threshold, Type.Null()]), wallet: Type.Optional(Wallet) },
  { additionalProperties: false, title: "AccountThresholdRequest" },
);

export const AccountThreshold = Type.Object(
  { account: Type.String(), wallet: Type.String(), threshold: NullableNumber() },
  { title: "AccountThreshold" },
);
