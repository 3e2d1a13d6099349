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

/** GET /messages/{id}: the account's detail of one message, and whose it is. */
export const OperatorMessageDetail = Type.Object({ account: NullableString(), ...MessageDetail.properties });

/** POST /accounts/{username}/credits/adjust. */
export const CreditAdjustment = Type.Object({
  account: Type.String(),
  wallet: Type.String(),
  adjusted: Credits,
  reason: Type.String(),
  balance: Credits,
});
