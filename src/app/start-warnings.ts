// What a start says once about settings whose default lets through SMS that Indian operators
// drop: said by the role the setting matters to (the worker hands SMS to carriers).
import type { Config } from "../base/runtime/config.js";

export function startWarnings(config: Pick<Config, "dlt">, roles: readonly ("api" | "worker")[]): string[] {
  const lines: string[] = [];
  if (roles.includes("worker") && config.dlt.promotionalHeader === undefined) {
    lines.push(
      'PROMOTIONAL_HEADER is unset: SMS from the generic sender ID PROMOTIONAL go to the simulated carrier as "PROMOTIONAL", which real carriers drop, so on a real carrier they fail (dlt_header_not_whitelisted) and are refunded; set PROMOTIONAL_HEADER to your registered 6-digit DLT promotional header',
    );
  }
  return lines;
}
