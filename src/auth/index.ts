export * from "./api-keys.js";
export * from "./authenticator.js";
export * from "./http.js";
export * from "./login-locks.js";
export * from "./passwords.js";
export * from "./rate-limits.js";
export * from "./sessions.js";
