// The console's initial JavaScript: the entry script and the modules it preloads, as
// index.html names them, gzipped (level 9) and brotli-compressed. Run after `npm run build`:
//   node bench/console-size.mjs
// Pages loaded on demand (lazy chunks) are listed apart; they are not part of the first load.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, gzipSync } from "node:zlib";

const dir = new URL("../dist/web/", import.meta.url).pathname;
const index = readFileSync(join(dir, "index.html"), "utf8");
const initial = [...index.matchAll(/(?:src|href)="\/(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]);
const size = (file) => {
  const bytes = readFileSync(join(dir, file));
  return { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length, brotli: brotliCompressSync(bytes).length };
};
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
let js = 0;
let css = 0;
for (const file of initial) {
  const s = size(file);
  if (file.endsWith(".js")) js += s.gzip;
  else css += s.gzip;
  console.log(
    `initial  ${file.padEnd(36)} ${kb(s.raw).padStart(9)} raw ${kb(s.gzip).padStart(9)} gzip ${kb(s.brotli).padStart(9)} br`,
  );
}
for (const file of readdirSync(join(dir, "assets"))) {
  if (initial.includes(`assets/${file}`)) continue;
  const s = size(`assets/${file}`);
  console.log(`on demand assets/${file.padEnd(29)} ${kb(s.raw).padStart(9)} raw ${kb(s.gzip).padStart(9)} gzip`);
}
console.log(`initial JavaScript: ${kb(js)} gzipped (budget 250 KB); initial CSS ${kb(css)} gzipped`);
if (js > 250 * 1024) process.exitCode = 1;
