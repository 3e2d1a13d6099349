export * from "./onboarding.js";
export * from "./operations.js";
export { registerAdminRoutes } from "./routes.js";
