// The WhatsApp family (issue 7): template, session-text and media sends over the WhatsApp
// Cloud API (or its simulator), statuses from Meta's webhook, and the 24-hour window.
export { registerWhatsAppAdminRoutes } from "./admin-routes.js";
export { META_WEBHOOK_PATH, registerMetaWebhookRoutes } from "./meta-routes.js";
export { startWhatsAppUpkeep } from "./upkeep.js";
export { registerV2WhatsAppRoutes } from "./v2-routes.js";
export { DEMO_WHATSAPP, setUpWhatsAppDemo, WhatsApp, type WhatsAppDeps } from "./whatsapp.js";
