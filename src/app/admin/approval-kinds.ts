// What the operator's approval queue holds (approvals.ts), in the order the console shows them.
// A list with no imports: the console imports it as it is (its filter and counts).
export const APPROVAL_KINDS = [
  "sender_id",
  "template",
  "keyword",
  "dlt_entity",
  "dlt_header",
  "dlt_url",
  "dlt_callback",
  "email_domain",
  "voice_caller_id",
] as const;
export type ApprovalKind = (typeof APPROVAL_KINDS)[number];
