// /api/v2/subaccounts: a parent (reseller) manages its direct sub-accounts with its own key or
// console session: creates them, lists them (paged), changes their price or status (decision
// 0149), makes them API keys (which act there with the role of the parent's user who made them:
// decision 0143), issues them credits and takes issued credits back (decision 0150).
// Any other account's name (a sibling, the caller's own parent, an unknown one) is a 404. It reads
// deeper than it manages: the list with `?subaccount=` is the sub-accounts of an account below it.
import { Type } from "typebox";
import { isoUtc } from "../../base/core/clock.js";
import { fromMilli, type Wallet } from "../../base/core/credits.js";
import { pageAnswer, resourceAnswer } from "../../base/http/answer-schemas.js";
import { PAGE_PARAMS, pageMeta, pageOf } from "../../base/http/query-params.js";
import type { TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { Db } from "../../base/store/store.js";
import { actorOf, creatorScopeBits, parentKeyMakerOf } from "../auth/index.js";
import { getAccount } from "./accounts.js";
import { KeyRequest } from "./key-changes.js";
import { newKeyAnswer } from "./key-routes.js";
import { markupPercent } from "./price-cards.js";
import {
  fundSubAccount,
  listSubAccounts,
  readableAccount,
  reclaimFromSubAccount,
  requireSubAccount,
  subaccountVia,
} from "./resellers.js";
import { createSubAccount, updateSubAccount } from "./subaccount-changes.js";
import { type SubAccountBelow, subAccountsBelowParent } from "./subaccounts-below.js";
import {
  CreatedKey,
  SubAccount,
  SubAccountChange,
  SubAccountFunding,
  SubAccountParam,
  SubAccountReclaim,
  SubAccountRequest,
  SubAccountVia,
} from "./v2-schemas.js";

const resource = { envelope: "status" } as const;
const PER_PAGE = 50;
const MAX_PER_PAGE = 200;

const Username = Type.Object({ username: Type.String({ minLength: 1, maxLength: 64 }) });

type Below = Pick<SubAccountBelow, "units_below" | "units" | "message">;

function describe(
  row: {
    username: string;
    status: string;
    price_card: string | null;
    markup_bp: number | null;
    created_at: number;
    balances: Record<Wallet, number>;
    subaccounts: number;
  },
  below?: Below,
) {
  return {
    username: row.username,
    status: row.status,
    price_card: row.price_card,
    markup_percent: markupPercent(row.markup_bp),
    balances: Object.fromEntries(Object.entries(row.balances).map(([w, milli]) => [w, fromMilli(milli)])) as Record<
      Wallet,
      number
    >,
    created_at: isoUtc(new Date(row.created_at)),
    below_parent: below ? { units_below: below.units_below, units: below.units, message: below.message } : null,
    subaccounts: row.subaccounts,
  };
}

/** The listed sub-accounts whose own card prices a unit below the caller's price, by username (decision 0168). */
async function belowOf(db: Db, now: number, rows: readonly { id: number; price_card: string | null }[]) {
  const ids = rows.filter((row) => row.price_card !== null).map((row) => row.id);
  const below = await subAccountsBelowParent(db, now, { ids });
  return new Map(below.map((sub) => [sub.username, sub]));
}

export function registerV2SubAccountRoutes(v2: TypedRoutes, ctx: Pick<Runtime, "store" | "clock">): void {
  const db = ctx.store.db;
  const parentOf = async (accountId: number) => {
    const parent = await getAccount(db, accountId);
    if (!parent) throw new Error(`no account ${accountId}`);
    return parent;
  };

  v2.post(
    "/subaccounts",
    {
      config: { ...resource, errors: [409] },
      schema: {
        operationId: "createSubAccount",
        summary: "A new sub-account of the caller (a reseller), its wallets empty",
        tags: ["account"],
        body: SubAccountRequest,
        response: { 201: resourceAnswer(SubAccount) },
      },
    },
    async (request, reply) => {
      const parent = await parentOf(request.principal!.accountId);
      const body = request.body;
      const created = await createSubAccount(ctx.store, { clock: ctx.clock, actor: actorOf(request) }, parent, {
        username: body.username,
        password: body.password,
        ...(body.price_card !== undefined ? { priceCard: body.price_card } : {}),
        ...(body.markup_percent !== undefined ? { markupPercent: body.markup_percent } : {}),
      });
      const zero = { sms: 0, international: 0, whatsapp: 0, email: 0, voice: 0 };
      return reply
        .code(201)
        .send({ status: "success", data: describe({ ...created, balances: zero, subaccounts: 0 }) });
    },
  );

  v2.get(
    "/subaccounts",
    {
      config: resource,
      schema: {
        operationId: "listSubAccounts",
        summary: "The caller's sub-accounts (or those of an account below it), oldest first, with their balances",
        tags: ["account"],
        querystring: Type.Object({ ...PAGE_PARAMS, subaccount: SubAccountParam }, { additionalProperties: false }),
        response: { 200: pageAnswer(SubAccount, { subaccount_via: SubAccountVia }) },
      },
    },
    async (request) => {
      const paging = pageOf(request.query, PER_PAGE, MAX_PER_PAGE);
      const parent = await readableAccount(db, request.principal!.accountId, request.query.subaccount);
      const { rows, total } = await listSubAccounts(db, parent.id, paging);
      const below = await belowOf(db, ctx.clock.now().getTime(), rows);
      const data = rows.map((row) => describe(row, below.get(row.username)));
      return { status: "success", data, meta: pageMeta(paging, total), ...subaccountVia(parent) };
    },
  );

  v2.patch(
    "/subaccounts/:username",
    {
      config: { ...resource, errors: [404] },
      schema: {
        operationId: "updateSubAccount",
        summary: "Changes a sub-account's price (a card at or above the caller's prices, or a markup) or status",
        tags: ["account"],
        params: Username,
        body: SubAccountChange,
        response: { 200: resourceAnswer(SubAccount) },
      },
    },
    async (request) => {
      const principal = request.principal!;
      const body = request.body;
      const who = { clock: ctx.clock, actor: actorOf(request) };
      const updated = await updateSubAccount(ctx.store, who, { id: principal.accountId }, request.params.username, {
        priceCard: body.price_card,
        markupPercent: body.markup_percent,
        status: body.status,
      });
      const { rows } = await listSubAccounts(db, principal.accountId, { page: 1, perPage: 1 }, updated.id);
      const below = await belowOf(db, ctx.clock.now().getTime(), rows);
      return { status: "success", data: describe(rows[0]!, below.get(rows[0]!.username)) };
    },
  );

  v2.post(
    "/subaccounts/:username/keys",
    {
      config: { ...resource, errors: [404] },
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        operationId: "createSubAccountKey",
        summary: "A new API key of one of the caller's sub-accounts, shown once (as POST /api/v2/keys)",
        tags: ["account"],
        params: Username,
        body: KeyRequest,
        response: { 201: resourceAnswer(CreatedKey) },
      },
    },
    async (request, reply) => {
      const principal = request.principal!;
      const sub = await requireSubAccount(db, principal.accountId, request.params.username);
      const who = { ...ctx, actor: actorOf(request) };
      const creatorBits = creatorScopeBits(principal, request.body.scopes);
      // The key acts in the sub-account with its maker's role, never above it (decision 0143).
      const answer = await newKeyAnswer(who, sub, request.body, creatorBits, parentKeyMakerOf(principal));
      return reply.code(201).send(answer);
    },
  );

  v2.post(
    "/subaccounts/:username/credits",
    {
      config: { ...resource, errors: [404] },
      schema: {
        operationId: "fundSubAccount",
        summary:
          "Issues credits into a sub-account's wallet (a topup noting the parent; the parent's wallet is not debited)",
        tags: ["account"],
        params: Username,
        body: Type.Object(
          {
            wallet: Type.String({ maxLength: 20 }),
            amount: Type.Number({ description: "Credits, at most three decimals." }),
          },
          { additionalProperties: false, title: "SubAccountFundingRequest" },
        ),
        response: { 200: resourceAnswer(SubAccountFunding) },
      },
    },
    async (request) => {
      const principal = request.principal!;
      const sub = await requireSubAccount(db, principal.accountId, request.params.username);
      const { wallet, amount } = request.body;
      const balance = await fundSubAccount(
        ctx.store,
        { clock: ctx.clock, actor: actorOf(request) },
        principal.username,
        sub,
        wallet,
        amount,
      );
      return {
        status: "success",
        data: { username: sub.username, wallet, amount, balance: fromMilli(balance) },
      };
    },
  );

  v2.post(
    "/subaccounts/:username/credits/reclaim",
    {
      config: { ...resource, errors: [404] },
      schema: {
        operationId: "reclaimSubAccountCredits",
        summary:
          "Takes credits back from a sub-account's wallet (issued by mistake): removed from it, not added to the parent's",
        tags: ["account"],
        params: Username,
        body: Type.Object(
          {
            wallet: Type.String({ maxLength: 20 }),
            amount: Type.Number({
              description: "Credits, at most three decimals, at most the wallet's spendable balance.",
            }),
          },
          { additionalProperties: false, title: "SubAccountReclaimRequest" },
        ),
        response: { 200: resourceAnswer(SubAccountReclaim) },
      },
    },
    async (request) => {
      const principal = request.principal!;
      const sub = await requireSubAccount(db, principal.accountId, request.params.username);
      const { wallet, amount } = request.body;
      const who = { clock: ctx.clock, actor: actorOf(request) };
      const taken = await reclaimFromSubAccount(ctx.store, who, principal.username, sub, wallet, amount);
      return {
        status: "success",
        data: { username: sub.username, wallet, amount, balance: fromMilli(taken.balance), ref: taken.ref },
      };
    },
  );
}
