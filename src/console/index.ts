// The console (issue 19): its sign-in routes and its pages, served by the API process.
export { type ConsolePages, consolePages } from "./pages.js";
export { registerSessionRoutes } from "./session-routes.js";
