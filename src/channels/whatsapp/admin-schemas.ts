// The operator API's WhatsApp answers (admin-routes.ts) as schemas: an account's settings and
// templates as the account sees them on v2, a template's test-only mark, and a simulated customer
// message. They serialize the answers and type what the console reads; typebox and schema files only.
import { Type } from "typebox";
import { Time } from "../../base/http/answer-schemas.js";
import { WhatsAppAccount, WhatsAppTemplate } from "./v2-schemas.js";

export const OperatorWhatsAppSettings = WhatsAppAccount;
export const OperatorWhatsAppTemplate = WhatsAppTemplate;

export const TemplateTestOnly = Type.Object({
  name: Type.String(),
  test_only: Type.Boolean(),
  /** How many of the template's languages were marked. */
  languages: Type.Integer(),
});

export const SimulatedInbound = Type.Object({ message_id: Type.String(), from: Type.String(), received_at: Time });
