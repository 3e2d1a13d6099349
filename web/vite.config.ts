// The console's build: web/ → dist/web, served by the gateway at / (src/app/console/pages.ts).
// No CDN and no inline script or style: the pages' Content-Security-Policy allows 'self' only.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const root = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  root,
  base: "/",
  publicDir: false,
  logLevel: "warn",
  oxc: { jsx: { runtime: "automatic" } },
  build: {
    outDir: fileURLToPath(new URL("../dist/web", import.meta.url)),
    emptyOutDir: true,
    target: "es2022",
    // Inlined assets would be data: URLs in a <style>/<script>; keep every asset a file.
    assetsInlineLimit: 0,
    reportCompressedSize: false,
    sourcemap: false,
    rolldownOptions: {
      onwarn(warning, warn) {
        // TanStack Query marks its modules "use client" for React Server Components; a browser bundle has none.
        if (warning.code === "MODULE_LEVEL_DIRECTIVE") return;
        warn(warning);
      },
    },
  },
  server: {
    // `npx vite --config web/vite.config.ts` during development: the API on the gateway.
    proxy: {
      "/api": "http://127.0.0.1:8080",
      "/admin/api": "http://127.0.0.1:8080",
      "/console/session": "http://127.0.0.1:8080",
    },
  },
});
