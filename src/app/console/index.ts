// The console (issue 19): its sign-in routes and its pages, served by the API process.
//
// Its files (others import this folder through this index only):
//   session-routes.ts  POST/GET/DELETE /console/session: sign-in with the Authenticator's password check
//                      and locks, the session and its CSRF token, sign-out; JSON bodies only
//   invitation-routes.ts  GET/POST /console/invitation: whose an invitation's link is; its password set
//   two-factor-routes.ts  POST /console/session/totp (a sign-in's second step) and /console/two-factor:
//                      enrol (secret, otpauth:// URL, QR), confirm (recovery codes), turn off
//   pages.ts           dist/web served at `/` (@fastify/static, one route per built file, hashed assets
//                      cached for good) with a page's security headers; index.html for a console page
//                      opened by its URL, never under the first segment of any API route (collected by
//                      an onRoute hook registered before every route)

export { registerInvitationRoutes } from "./invitation-routes.js";
export { type ConsolePages, consolePages } from "./pages.js";
export { registerSessionRoutes } from "./session-routes.js";
export { registerTwoFactorRoutes } from "./two-factor-routes.js";
