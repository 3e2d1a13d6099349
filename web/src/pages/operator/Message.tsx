// One message of any account for the operator (GET /admin/api/messages/{id}): the account's own
// message page (status, cost, carrier, parts, the full timeline, webhook deliveries) with the
// account it belongs to, its DLT facts and every level's charge (../message-facts.tsx); with no
// webhook settings read (the account's are not the operator's to read here).
import { MessageView } from "../Message.js";

export default function OperatorMessagePage({ params }: { params: Record<string, string> }) {
  const id = params.id ?? "";
  return <MessageView path={`/admin/api/messages/${encodeURIComponent(id)}`} back="/operator/messages" operator />;
}
