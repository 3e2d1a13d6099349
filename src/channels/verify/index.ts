// The Verify API (issue 41): one-time codes sent by a channel's own send path and checked here.
//   codes.ts           the code: drawn, HMAC'd, compared in constant time, sealed for the carrier, masked
//   settings.ts        an account's verify settings (template, sender, caller, escalation order)
//   rows.ts            the verifications table: each change of state one conditional statement
//   send-code.ts       a code's send by SMS, voice, email (the Acceptor) or WhatsApp (its template send); the
//                      channels the account can use to reach a recipient
//   guards.ts          the pumping and abuse guards of a start: per recipient and address, countries, the
//                      destination prefix whose conversion fell low (blocked an hour, the operator alerted)
//   prefix-alerts.ts   that block's operator alert: raised with it, cleared once when it ends or is allowed
//   analytics.ts       conversion per channel and country (started, approved, rate, mean time to approve)
//   verifier.ts        Verifier: start, check, resend, cancel, expiry, and their webhook events
//   reveal.ts          the dispatcher's hook: the code put back in the text handed to the carrier, or the
//                      message withheld (failed, refunded) when its verification is final
//   routes.ts          /api/v2/verify…                admin-routes.ts  /admin/api/accounts/{username}/verify…
//   schemas.ts         requests and answers

export { registerVerifyAdminRoutes } from "./admin-routes.js";
export { CodeKeeper, verifySecret } from "./codes.js";
export { codeRevealer } from "./reveal.js";
export { registerV2VerifyRoutes } from "./routes.js";
export { Verifier } from "./verifier.js";
