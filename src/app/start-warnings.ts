// What a start says once about settings whose default lets through SMS that Indian operators
// drop: said by the role the setting matters to (the api role accepts sends, the worker hands
// them to carriers).
import type { Config } from "../base/runtime/config.js";

export function startWarnings(config: Pick<Config, "dlt">, roles: readonly ("api" | "worker")[]): string[] {
  const lines: string[] = [];
  if (roles.includes("worker") && config.dlt.promotionalHeader === undefined) {
    lines.push(
      'PROMOTIONAL_HEADER is unset: SMS from the generic sender ID PROMOTIONAL go to the simulated carrier as "PROMOTIONAL", which real carriers drop, so on a real carrier they fail (dlt_header_not_whitelisted) and are refunded; set PROMOTIONAL_HEADER to your registered 6-digit DLT promotional header',
    );
  }
  if (roles.includes("api") && !config.dlt.chainRequired) {
    lines.push(
      "DLT_CHAIN_REQUIRED is off: sends whose DLT entity has no declared PE-TM chain are accepted, and Indian operators drop them since December 2024; set DLT_CHAIN_REQUIRED=1 to refuse them before the charge",
    );
  }
  return lines;
}
