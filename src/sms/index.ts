export { accountDltEntity } from "./dlt-entity.js";
export { LEGACY_PREFIXES, registerLegacyRoutes } from "./legacy-routes.js";
export { SmsPolicy, type SmsSendInput } from "./policy.js";
export { registerV2SmsRoutes } from "./v2-routes.js";
