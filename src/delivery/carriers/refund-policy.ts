// The refund policy per reason (issue 40, item 5; decision 0133): whether a message its carrier
// failed with a code mapped to a reason is refunded when the report comes. REFUND_CARRIER_REASONS
// is the installation's default; the operator's choice for a reason (the operator API, the
// console, the CLI) wins over it, and removing the choice gives the reason back to the default.
// The choices are one JSON object in `settings`, changed through the carriers' catalog (its lock,
// its version bumped, CARRIERS_CHANGED, the audit entry in the same transaction), so the report
// ingesters read them again as they read the error_codes tables (error-code-book.ts).
import { ERROR_CATALOGUE, type ErrorCode, GatewayError } from "../../base/core/errors.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { Db } from "../../base/store/store.js";
import { type Actor, recordChange } from "../../domain/audit/index.js";
import { changeCatalog, listCarriers } from "./catalog.js";
import { DEFAULT_ERROR_CODES } from "./error-codes.js";

const POLICY_KEY = "carrier_refund_policy";

/** The operator's choices: reason → refunded or not. */
export type RefundChoices = Readonly<Record<string, boolean>>;

type Deps = Pick<Runtime, "store" | "clock"> & { actor?: Actor | undefined };

export async function readRefundChoices(db: Db): Promise<RefundChoices> {
  const row = await db.selectFrom("settings").select("value").where("key", "=", POLICY_KEY).executeTakeFirst();
  if (!row) return {};
  const parsed = JSON.parse(row.value) as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(parsed).filter(([, refund]) => typeof refund === "boolean"),
  ) as RefundChoices;
}

/** The reasons whose carrier failures are refunded: the default's, with the operator's choices over it. */
export function refundedReasons(defaults: ReadonlySet<string>, choices: RefundChoices): ReadonlySet<string> {
  const reasons = new Set(defaults);
  for (const [reason, refund] of Object.entries(choices)) {
    if (refund) reasons.add(reason);
    else reasons.delete(reason);
  }
  return reasons;
}

/**
 * The policy as the operator API, the console and the CLI show it: every reason the default table
 * or a connector's own table maps a code to, the default names or the operator chose, with
 * whether its failures are refunded and why.
 */
export async function describeRefundPolicy(db: Db, defaults: ReadonlySet<string>) {
  const [choices, carriers] = await Promise.all([readRefundChoices(db), listCarriers(db)]);
  const mapped = [
    ...Object.values(DEFAULT_ERROR_CODES),
    ...carriers.flatMap((carrier) => Object.values(carrier.definition.error_codes ?? {})),
  ].map((entry) => entry.reason);
  const reasons = new Set<string>([...mapped, ...defaults, ...Object.keys(choices)]);
  return {
    default_reasons: [...defaults].sort(),
    reasons: [...reasons].sort().map((reason) => {
      const chosen = Object.hasOwn(choices, reason);
      return {
        reason,
        refund: chosen ? choices[reason] === true : defaults.has(reason),
        source: chosen ? ("operator" as const) : ("default" as const),
        description: Object.hasOwn(ERROR_CATALOGUE, reason) ? ERROR_CATALOGUE[reason as ErrorCode].message : "",
      };
    }),
  };
}

function checkReason(reason: string): void {
  if (!Object.hasOwn(ERROR_CATALOGUE, reason)) {
    throw new GatewayError(
      "invalid_request",
      `"${reason.slice(0, 60)}" is not a reason of the error catalogue (e.g. dlt_template_mismatch, dlt_header_inactive).`,
    );
  }
}

/**
 * Sets the operator's choice for `reason` (refund or not), or removes it (undefined: the default
 * decides again). Refuses a reason outside the catalogue, and the removal of a choice not made.
 */
export async function changeRefundChoice(deps: Deps, reason: string, refund: boolean | undefined): Promise<void> {
  checkReason(reason);
  await changeCatalog({ store: deps.store, clock: deps.clock }, async (trx) => {
    const choices = { ...(await readRefundChoices(trx)) };
    const before = Object.hasOwn(choices, reason) ? { refund: choices[reason] } : undefined;
    if (refund === undefined && !before) {
      throw new GatewayError(
        "not_found",
        `There is no choice of the operator for ${reason} to remove: REFUND_CARRIER_REASONS decides it.`,
      );
    }
    if (refund === undefined) delete choices[reason];
    else choices[reason] = refund;
    const value = JSON.stringify(choices);
    await trx
      .insertInto("settings")
      .values({ key: POLICY_KEY, value })
      .onConflict((oc) => oc.column("key").doUpdateSet({ value }))
      .execute();
    if (deps.actor) {
      await recordChange(
        trx,
        { clock: deps.clock, actor: deps.actor },
        {
          action: refund === undefined ? "refund_policy.remove" : "refund_policy.set",
          target: `refund policy of ${reason}`,
          accountId: null,
          before,
          after: refund === undefined ? undefined : { refund },
        },
      );
    }
  });
}
