// The operator API's answers of the support desk and the money desk as schemas: every account's
// messages (a row is the status answer with its account; one message is the account's detail
// with its account) and a wallet's correction. Typebox and schema files only.
import { Type } from "typebox";
import { Credits, NullableString } from "../../base/http/answer-schemas.js";
import { DeliveryReport, MessageDetail, MessagePage } from "../../channels/sms/v2-schemas.js";

export const OperatorMessage = Type.Object({ account: NullableString(), ...DeliveryReport.properties });

/** GET /messages: the account list's page, each row with its account. */
export const OperatorMessagePage = Type.Object({
  ...MessagePage.properties,
  data: Type.Array(OperatorMessage),
});

/** An SMS's DLT facts as stored at acceptance (message-facts.ts); null for other channels. */
export const MessageDltFacts = Type.Union([
  Type.Object({
    header: NullableString({
      description:
        "The source address (DLT header) a carrier got, as recorded at its submit: its sender ID, or for the generic PROMOTIONAL the PROMOTIONAL_HEADER it was sent as then (not today's). Null: not known, a PROMOTIONAL message handed to a real carrier with nothing recorded (sent before migration 0075, or refused before a carrier got it).",
    }),
    entity_id: NullableString({ description: "The DLT entity (PE) id sent to the carrier." }),
    template_id: NullableString({ description: "The DLT template id sent to the carrier." }),
    matched_template: Type.Union([
      Type.Object({
        id: Type.Integer(),
        name: NullableString({ description: "Null when the template was removed since." }),
        dlt_template_id: NullableString(),
      }),
      Type.Null(),
    ]),
    tm_chain: NullableString({
      description:
        "The telemarketer chain declared for its entity when it was accepted, PE,TM1,…,TMn (the operator's TM ID last), as carriers are handed it; null: none declared, or accepted before the gateway kept it.",
    }),
    tm_chain_hash: NullableString({ description: "The SHA-256 (lower-case hex) of tm_chain: the chain's other form." }),
    scrubbing: Type.Union(
      [...["matched", "unmatched", "off", "international"].map((outcome) => Type.Literal(outcome)), Type.Null()],
      {
        description:
          "What DLT scrubbing did at acceptance: matched (header and entity white-listed, the text matched an approved template), unmatched (white-listed, no template matched: a route that takes any text), off (the account did not scrub: nothing checked), international (DLT does not cover it); null: accepted before the gateway kept it.",
      },
    ),
  }),
  Type.Null(),
]);

/** GET /messages/{id}: the account's detail of one message, whose it is, its DLT facts and each level's charge. */
export const OperatorMessageDetail = Type.Object({
  account: NullableString(),
  ...MessageDetail.properties,
  dlt: MessageDltFacts,
  charges: Type.Array(Type.Object({ account: NullableString(), credits: Credits }), {
    description: "What each level was charged: the message's own account first, then its parent and up.",
  }),
});

/** POST /accounts/{username}/credits/adjust. */
export const CreditAdjustment = Type.Object({
  account: Type.String(),
  wallet: Type.String(),
  adjusted: Credits,
  reason: Type.String(),
  balance: Credits,
});
