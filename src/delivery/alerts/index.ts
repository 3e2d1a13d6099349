// alerts/: the operator's alerts (issue 38): an account's balance below its threshold, a
// connector down for a while, a webhook endpoint failing for a while, a connector's delivery rate
// over its last messages falling low. Each raised once and cleared once, whatever the number of
// processes evaluating (states in alert_states), told by a signed webhook to the operator's alert
// URL and by email, shown by the operator API and console, and counted in /metrics.
//
// Its files (others import this folder through this index only):
//   settings.ts        the operator's settings (one row, JSON) with their defaults and checked
//                      changes; each account's own low-balance threshold (alert_thresholds)
//   states.ts          settleAlerts: a kind's conditions against the stored states, raising with one
//                      conditional UPDATE and clearing with one conditional DELETE; the active alerts
//   evaluate.ts        evaluateAlerts: every kind's conditions read from their owners, raises and
//                      clears told (webhook queued in their transaction, email after it, the
//                      account's low_balance event), the gauges; startAlertChecks, its loop
//   operations.ts      describeAlerts and changeAlerts: the settings as the operator API and the CLI
//                      show and change them (one checked change; the operator account that signs)
//   admin-routes.ts    GET|PUT /admin/api/alerts, GET|PUT /admin/api/accounts/{username}/low-balance-threshold
//   alert-schemas.ts   their bodies and answers as schemas (typebox only: the console's too)

export { registerAlertAdminRoutes } from "./admin-routes.js";
export { type AlertMailer, alertPayload, evaluateAlerts, startAlertChecks } from "./evaluate.js";
export { type AlertDeps, changeAlerts, checkChange, describeAlerts } from "./operations.js";
export { accountThreshold, readAlertSettings, setAccountThreshold } from "./settings.js";
