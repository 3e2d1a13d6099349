export * from "./api-keys.js";
export * from "./authenticator.js";
export * from "./passwords.js";
