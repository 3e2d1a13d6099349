// The v2 account resources' answers as schemas: they serialize the answers and show them in the
// OpenAPI document.
import { Type } from "typebox";
import {
  Credits,
  NullableNumber,
  NullableString,
  NullableTime,
  OneOf,
  Time,
  Wallets,
} from "../../base/http/answer-schemas.js";
import { ACCOUNT_USER_ROLES, STAFF_ROLES, type UserRole } from "../auth/user-roles.js";

const ApprovalStatus = Type.String({ description: "pending, approved or rejected." });

/** `?subaccount=` on v2 reads: a reseller reads an account below it (any depth) instead of its own (readableAccount, resellers.ts). */
export const SubAccountParam = Type.Optional(Type.String({ maxLength: 64 }));

/**
 * Beside an answer for an account below the caller (`?subaccount=`, a sub-account's message): the
 * accounts between, so a client places it in the tree without walking it. Absent for the caller's own.
 */
export const SubAccountVia = Type.Optional(
  Type.Array(Type.String(), {
    description:
      "The usernames of the accounts between the caller and that sub-account, top first: [] for a direct sub-account, never an account above the caller.",
  }),
);

export const Template = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    content: Type.String({ description: "The text, with {#var#} for each variable part." }),
    dlt_template_id: NullableString(),
    entity_id: NullableString(),
    sender_id: NullableString(),
    status: ApprovalStatus,
    notes: NullableString(),
    rejection_reason: NullableString({
      description: "The operator's reason for rejecting it; null unless rejected with one.",
    }),
    created_at: Time,
    updated_at: Time,
  },
  { title: "Template" },
);

export const TemplateRequest = Type.Object(
  {
    name: Type.String({ maxLength: 200 }),
    content: Type.Optional(
      Type.String({
        maxLength: 10_000,
        description:
          "Placeholders written as {#var#}. Left out: a draft, which cannot be approved until it has content.",
      }),
    ),
    dlt_template_id: Type.Optional(Type.Union([Type.String({ maxLength: 60 }), Type.Null()])),
    entity_id: Type.Optional(Type.Union([Type.String({ maxLength: 60 }), Type.Null()])),
  },
  { additionalProperties: false, title: "TemplateRequest" },
);

export const AccountStatus = Type.Object(
  {
    credit_balance: Credits,
    today: Type.Object({
      total_sent: Type.Integer(),
      delivered: Type.Integer(),
      failed: Type.Integer(),
      credits_used: Credits,
    }),
    pending: Type.Object({ templates: Type.Integer(), sender_ids: Type.Integer() }),
    account_status: Type.String({
      description:
        "active, inactive or blocked: the status the account acts with, its own or a parent account's that stops it.",
    }),
    send_disabled_reason: NullableString({
      description:
        "Why the account cannot send (every v2 call but this one answers 403 account_inactive); null when active.",
    }),
    server_time: Type.String({ format: "date-time", description: "In the account's time zone, with its offset." }),
  },
  { title: "AccountStatus" },
);

export const LedgerEntry = Type.Object(
  {
    id: Type.Integer(),
    wallet: Type.String({ description: "sms, international, whatsapp, email or voice." }),
    amount: Credits,
    kind: Type.String({ description: "topup, debit, refund, transfer_in, transfer_out or adjustment." }),
    note: NullableString(),
    created_at: Time,
    balance_after: Credits,
  },
  { title: "LedgerEntry" },
);

export const CreditDetail = Type.Object(
  {
    balance: Credits,
    international_credit: Credits,
    today_used: Credits,
    month_used: Credits,
    flood_current: Type.Integer(),
    flood_limit: Type.Integer(),
    recent_credits: Type.Array(LedgerEntry, { description: "The last 10 ledger entries, newest first." }),
    wallets: Wallets,
    price_card: Type.String({
      description:
        'The price card the account\'s SMS and calls are charged by (default: 1 credit a unit; a sub-account: "your price")',
    }),
  },
  { title: "CreditDetail" },
);

export const CreditDay = Type.Object(
  { date: Type.String({ format: "date" }), credits_used: Credits, messages: Type.Integer() },
  { title: "CreditDay" },
);

/** A wallet's ledger over a window (GET /api/v2/credits/totals, and the operator's of an account). */
export const LedgerTotals = Type.Object(
  {
    wallet: Type.String({ description: "sms, international, whatsapp, email or voice." }),
    opening: Type.Number({ description: "The sum of the wallet's entries before the window: its balance then." }),
    topup: Type.Number(),
    debit: Type.Number({ description: "Negative, as the entries." }),
    refund: Type.Number(),
    transfer_in: Type.Number(),
    transfer_out: Type.Number({ description: "Negative, as the entries." }),
    adjustment: Type.Number({ description: "Net: corrections either way." }),
    closing: Type.Number({ description: "opening plus every entry of the window: the balance at its end." }),
    entries: Type.Integer({ description: "Ledger entries in the window." }),
    balance: Type.Number({ description: "The wallet's balance now; equal to closing when the window has no end." }),
  },
  { title: "LedgerTotals" },
);

export const CreditTransferRequest = Type.Object(
  {
    recipient_username: Type.String({ minLength: 1, maxLength: 64 }),
    amount: Type.Number({ description: "Credits, at most three decimals." }),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
  },
  { additionalProperties: false, title: "CreditTransferRequest" },
);

export const CreditTransfer = Type.Object(
  {
    transfer_id: Type.String(),
    recipient_username: Type.String(),
    amount: Credits,
    description: NullableString(),
    balance: Credits,
  },
  { title: "CreditTransfer" },
);

export const SenderIdRequest = Type.Object(
  {
    id: Type.Integer(),
    sender_id: Type.String(),
    status: ApprovalStatus,
    note: NullableString(),
    rejection_reason: NullableString({
      description: "The operator's reason for rejecting it; null unless rejected with one.",
    }),
    created_at: Time,
  },
  { title: "SenderIdRequest" },
);

// ---- API keys (key-routes.ts) ----------------------------------------------------------------

const KeyScopes = Type.Array(Type.String(), {
  description: "What the key may do: send, read, manage, billing (docs/api.md, Key scopes).",
});
const AllowedIps = Type.Union([Type.Array(Type.String()), Type.Null()], {
  description: "Addresses and CIDR ranges the key may be used from; null: anywhere.",
});

export const ApiKey = Type.Object(
  {
    id: Type.Integer(),
    prefix: Type.String({ description: "The key's first 10 characters, to tell keys apart." }),
    name: NullableString(),
    rate_limit: Type.Integer({ description: "Requests per minute; 0 = unlimited." }),
    scopes: KeyScopes,
    allowed_ips: AllowedIps,
    created_by: NullableString({
      description:
        "The login that made the key, whose role it acts with (decision 0140); null: made by the operator, the CLI or before keys recorded it, acting as the owner.",
    }),
    maker_role: Type.Unsafe<UserRole | null>({
      type: ["string", "null"],
      enum: [...ACCOUNT_USER_ROLES, ...STAFF_ROLES, null],
      description:
        "The role the key acts with: its maker's role now (owner, operator_admin for a key that records no maker); null when its maker is removed. A user may change or revoke only a key that can do nothing their role cannot.",
    }),
    created_at: Time,
    revoked_at: NullableTime(),
  },
  { title: "ApiKey" },
);

export const CreatedKey = Type.Object(
  {
    id: Type.Integer(),
    api_key: Type.String({ description: "The key: shown this once, never again." }),
    prefix: Type.String(),
    name: NullableString(),
    rate_limit: Type.Integer(),
    scopes: KeyScopes,
    allowed_ips: AllowedIps,
  },
  { title: "CreatedApiKey" },
);

export const KeyRevocation = Type.Object({ id: Type.Integer(), revoked: Type.Boolean() });

// ---- DLT registrations (dlt-routes.ts) ------------------------------------------------------

const DltStatus = OneOf(["pending", "approved", "rejected"]);
export const DltEntity = Type.Object(
  {
    id: Type.Integer(),
    entity_id: Type.String(),
    status: DltStatus,
    rejection_reason: NullableString({
      description: "The operator's reason for rejecting it; null unless rejected with one.",
    }),
    tm_chain: Type.Array(Type.String(), {
      description: "The declared telemarketer chain, the operator's own TM ID last; [] when none is declared",
    }),
    created_at: Time,
  },
  { title: "DltEntity" },
);
export const DltHeader = Type.Object(
  {
    id: Type.Integer(),
    header: Type.String(),
    status: DltStatus,
    rejection_reason: NullableString({
      description: "The operator's reason for rejecting it; null unless rejected with one.",
    }),
    created_at: Time,
  },
  { title: "DltHeader" },
);

export const DltLink = Type.Object(
  {
    id: Type.Integer(),
    entity_id: Type.String(),
    url: NullableString({
      description:
        "A link (null for a callback number): host without scheme or www., then the path; / or ? at the end: a prefix",
    }),
    number: NullableString({
      description: "A callback number (null for a link): 10 digits, or a toll-free 1800/1860 number",
    }),
    status: DltStatus,
    rejection_reason: NullableString({
      description: "The operator's reason for rejecting it; null unless rejected with one.",
    }),
    created_at: Time,
  },
  { title: "DltLink" },
);

export const DltRegistrations = Type.Object(
  {
    entities: Type.Array(DltEntity),
    headers: Type.Array(DltHeader),
    urls: Type.Array(DltLink),
    callbacks: Type.Array(DltLink),
  },
  { title: "DltRegistrations" },
);

export const PriceQuote = Type.Object(
  {
    price: Type.Number({ description: "Credits per unit" }),
    unit: Type.Union([Type.Literal("sms_segment"), Type.Literal("voice_unit")]),
    prefix: Type.String({ description: "The prefix of the card's row applied; * for the catch-all row or none" }),
    route: Type.String({ description: "The route code priced (T, P, PS, I or V)" }),
    card: Type.String({
      description: 'The account\'s price card (default: 1 credit a unit; a sub-account: "your price")',
    }),
  },
  { description: "The price of one SMS segment or voice call unit to the recipient" },
);

// ---- Sub-accounts (subaccount-routes.ts) ------------------------------------------------------

export const SubAccount = Type.Object(
  {
    username: Type.String(),
    status: Type.String(),
    price_card: NullableString({ description: "Its own card; null: its parent's price with markup_percent." }),
    markup_percent: NullableNumber({ description: "Added to the parent's price when it has no card of its own." }),
    balances: Wallets,
    created_at: Time,
    below_parent: Type.Union(
      [
        Type.Object(
          {
            units_below: Type.Integer({ description: "Units (channel, route, prefix, moment) priced below yours" }),
            units: Type.Array(
              Type.Object({
                channel: Type.String(),
                route: Type.String(),
                prefix: Type.String({ description: "* for numbers no prefix names" }),
                from: Type.Union([Type.String({ format: "date-time" }), Type.Null()], {
                  description: "null: now; else the moment a later row starts",
                }),
                price: Type.Number({ description: "The sub-account's price (credits)" }),
                parent_price: Type.Number({ description: "Your price of the same unit (credits)" }),
              }),
              { description: "The first five of them" },
            ),
            message: Type.String(),
          },
          { title: "SubAccountBelowParent" },
        ),
        Type.Null(),
      ],
      {
        description:
          "Its own card prices some unit below your price (a card changed since it was given): you pay more for such a send than it is charged. null: none.",
      },
    ),
    subaccounts: Type.Integer({
      minimum: 0,
      description:
        "How many sub-accounts of its own it has: GET /api/v2/subaccounts?subaccount=<its username> lists them.",
    }),
  },
  { title: "SubAccount" },
);

export const SubAccountRequest = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 64 }),
    password: Type.String({ minLength: 1, maxLength: 256 }),
    price_card: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    markup_percent: Type.Optional(Type.Number({ minimum: 0, maximum: 1000 })),
  },
  { additionalProperties: false, title: "SubAccountRequest" },
);

export const SubAccountChange = Type.Object(
  {
    price_card: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: "Its own card; none may price below yours." }),
    ),
    markup_percent: Type.Optional(
      Type.Number({ minimum: 0, maximum: 1000, description: "Your price marked up (clears its card)." }),
    ),
    status: Type.Optional(
      Type.Union([Type.Literal("active"), Type.Literal("suspended"), Type.Literal("inactive")], {
        description: "suspended (stored and shown as inactive) stops it and its sub-accounts.",
      }),
    ),
  },
  { additionalProperties: false, title: "SubAccountChange" },
);

export const SubAccountFunding = Type.Object(
  { username: Type.String(), wallet: Type.String(), amount: Credits, balance: Credits },
  { title: "SubAccountFunding" },
);

export const SubAccountReclaim = Type.Object(
  {
    username: Type.String(),
    wallet: Type.String(),
    amount: Credits,
    balance: Credits,
    ref: Type.String({ description: "The ledger entry's ref (reclaim_…)." }),
  },
  { title: "SubAccountReclaim" },
);
