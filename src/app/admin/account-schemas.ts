// The operator API's answers about accounts (routes.ts, login-lock-routes.ts) as schemas: accounts
// with their readiness, keys, credits and the ledger, sender IDs, the approval queue and login locks.
// They serialize the answers and type what the console reads; typebox and schema files only.
// Every answer is `{ status: "success", data }` (resourceAnswer), a list also with `meta`.
import { type TInteger, Type } from "typebox";
import {
  Credits,
  NullableNumber,
  NullableString,
  NullableTime,
  OneOf,
  PageMeta,
  Time,
  Wallets,
} from "../../base/http/answer-schemas.js";
import { ACCOUNT_ROLES, ACCOUNT_STATUSES, DLT_MATCHING_MODES } from "../../domain/accounts/account-fields.js";
import { ApiKey, DltHeader, KeyRevocation, SenderIdRequest } from "../../domain/accounts/v2-schemas.js";
import { APPROVAL_KINDS, type ApprovalKind } from "./approval-kinds.js";
import { SubAccountBelowParent } from "./price-card-schemas.js";

/** An account as listed (accounts/accounts.ts describeAccount), with its wallets. */
export const OperatorAccount = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  role: OneOf(ACCOUNT_ROLES),
  status: OneOf(ACCOUNT_STATUSES),
  time_zone: Type.String(),
  flood_limit: Type.Integer(),
  get_api_enabled: Type.Boolean(),
  international_enabled: Type.Boolean(),
  dlt_scrubbing: Type.Boolean(),
  dlt_matching: OneOf(DLT_MATCHING_MODES),
  promo_sender_enabled: Type.Boolean(),
  routes: Type.Array(Type.String()),
  default_dlt_entity_id: NullableString(),
  /** The account's promotional hours (HH:MM-HH:MM); null: the operator's PROMO_HOURS. */
  promo_hours: NullableString(),
  /** Sends shorten their links (tracked short links) unless they say otherwise. */
  shorten_urls: Type.Boolean(),
  /** Where password logins (legacy, XML, email) may come from; null: anywhere. */
  password_allowed_ips: Type.Union([Type.Array(Type.String()), Type.Null()]),
  locked_until: NullableTime(),
  created_at: Time,
  balances: Wallets,
});

/** A registration the account lacks to send SMS, with the command and the call that add it (readiness.ts). */
export const MissingRegistration = Type.Object({
  what: OneOf([
    "account_status",
    "sender_id",
    "dlt_header",
    "dlt_entity",
    "default_dlt_entity",
    "dlt_chain",
    "template",
    "credits",
  ]),
  message: Type.String(),
  command: Type.String(),
  api: Type.String(),
});

/** One account with its registrations and whether it can send SMS (`accounts show`). */
export const OperatorAccountDetail = Type.Object({
  ...OperatorAccount.properties,
  /** The account's price card (`default`: 1 credit a unit). */
  price_card: Type.String(),
  /** The reseller account above it; null for an operator's direct customer. */
  parent: NullableString(),
  /** A sub-account's markup on its parent's price (per cent); null without a parent or a markup. */
  markup_percent: NullableNumber(),
  /** Its own card's units below its parent's price (a card changed since it was given); null when none. */
  below_parent: Type.Union([SubAccountBelowParent, Type.Null()]),
  /** The sub-accounts below it whose own card prices a unit below their parent's price (decision 0168). */
  subaccounts_below_parent: Type.Array(SubAccountBelowParent),
  registrations: Type.Object({
    sender_ids: Type.Array(Type.Object({ id: Type.Integer(), sender_id: Type.String(), status: Type.String() })),
    dlt_headers: Type.Array(Type.String()),
    dlt_entities: Type.Array(Type.String()),
    /** The white-listed entities without a declared telemarketer chain (refused while DLT_CHAIN_REQUIRED is on). */
    dlt_entities_without_chain: Type.Array(Type.String()),
    /** The entity a send that names none carries; null when none would. */
    dlt_entity_of_sends: NullableString(),
    templates: Type.Object({ approved: Type.Integer(), pending: Type.Integer() }),
  }),
  ready: Type.Boolean(),
  missing: Type.Array(MissingRegistration),
});

/** POST /accounts: the account made, its first key (shown this once) and what it still lacks. */
export const OnboardedAccount = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  api_key: Type.String(),
  ready: Type.Boolean(),
  missing: Type.Array(MissingRegistration),
});

/** An account's keys as listed: never the key, its prefix (the v2 list's shape). */
export const OperatorApiKey = ApiKey;

export const OperatorCreatedKey = Type.Object({
  id: Type.Integer(),
  account: Type.String(),
  api_key: Type.String(),
  prefix: Type.String(),
  rate_limit: Type.Integer(),
  scopes: Type.Array(Type.String()),
  allowed_ips: Type.Union([Type.Array(Type.String()), Type.Null()]),
});

export const OperatorKeyRevocation = KeyRevocation;

/** A key changed: its id and the fields the change asked for, as they are now. */
export const KeyChanged = Type.Object({
  id: Type.Integer(),
  rate_limit: Type.Optional(Type.Integer()),
  name: Type.Optional(NullableString()),
  scopes: Type.Optional(Type.Array(Type.String())),
  allowed_ips: Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()])),
});

export const CreditTopUp = Type.Object({ account: Type.String(), wallet: Type.String(), balance: Credits });

/** A ledger entry as the operator sees it: the account's view, and the send or transfer it is for (`ref`). */
export const OperatorLedgerEntry = Type.Object({
  id: Type.Integer(),
  wallet: Type.String(),
  amount: Credits,
  balance_after: Credits,
  kind: Type.String(),
  ref: NullableString(),
  note: NullableString(),
  created_at: Time,
});

/**
 * The body of a sender ID's add: `approve` approves it at once, and white-lists it as the
 * account's DLT header too unless `dlt_header` is false (decision 0151); `dlt_header` goes with
 * `approve: true` only (addSenderIdFor).
 */
export const SenderIdAddition = Type.Object(
  { sender: Type.String(), approve: Type.Optional(Type.Boolean()), dlt_header: Type.Optional(Type.Boolean()) },
  { additionalProperties: false, title: "SenderIdAddition" },
);

/** A sender ID as added, and the DLT header an add with `approve` white-listed or found so (null: none). */
export const AddedSenderId = Type.Object({
  id: Type.Integer(),
  account: Type.String(),
  sender_id: Type.String(),
  status: Type.String(),
  dlt_header: Type.Union([DltHeader, Type.Null()]),
});

/** A sender ID as listed: the account's own request's shape (v2). */
export const OperatorSenderId = SenderIdRequest;
/**
 * A sender ID as decided by its id: the same, whose it is, and the DLT header its approval
 * white-listed or found white-listed (null: a rejection, `dlt_header: false`, or not a header).
 */
export const DecidedSenderId = Type.Object({
  ...SenderIdRequest.properties,
  account: Type.String(),
  dlt_header: Type.Union([DltHeader, Type.Null()]),
});

/** The body of a sender ID's approval (optional): `dlt_header: false` leaves the DLT headers as they are. */
export const SenderIdApproval = Type.Object(
  { dlt_header: Type.Optional(Type.Boolean()) },
  { additionalProperties: false, title: "SenderIdApproval" },
);

export const ApprovalItem = Type.Object({
  kind: OneOf(APPROVAL_KINDS),
  id: Type.Integer(),
  account: Type.String(),
  value: Type.String(),
  detail: NullableString(),
  created_at: Time,
  /** An email domain's other holders, approved or pending (decision 0179): its approval needs confirm_shared. */
  shared_with: Type.Optional(
    Type.Array(Type.Object({ account: Type.String(), status: OneOf(["approved", "pending"] as const) })),
  ),
});

/** GET /approvals: a page of the queue, and how many of each kind wait. */
export const ApprovalQueue = Type.Object({
  status: Type.Literal("success"),
  data: Type.Array(ApprovalItem),
  waiting: Type.Object(
    Object.fromEntries(APPROVAL_KINDS.map((kind) => [kind, Type.Integer()])) as Record<ApprovalKind, TInteger>,
  ),
  meta: PageMeta,
});

export const LoginLock = Type.Object({
  username: Type.String(),
  scope: OneOf(["account", "address"]),
  /** The source address locked out; null for the whole account's lock. */
  address: NullableString(),
  locked_until: Time,
});

export const LoginLocksCleared = Type.Object({ cleared: Type.Integer() });

/** A console login's second factor reset by the operator (DELETE /accounts/:username/two-factor). */
export const TwoFactorResetAnswer = Type.Object({
  username: Type.String(),
  login: Type.String(),
  reset: Type.Boolean(),
});

/** An operator's read-only view of an account's console (GET /account-views). */
export const AccountView = Type.Object({
  id: Type.Integer(),
  account: Type.String(),
  viewer: Type.String(),
  address: Type.String(),
  user_agent: NullableString(),
  started_at: Type.String(),
  ended_at: NullableString(),
});
