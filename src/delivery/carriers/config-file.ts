// The carriers file (SWITCHBOARD_CARRIERS_FILE): SMS connectors and routes for deployments that
// keep configuration in files. JSON, or YAML when the name ends in .yaml/.yml:
//
//   connectors:
//     - { name: airtel-t, type: smpp, host: smsc.example.in, port: 2775,
//         system_id: acme, password: ${AIRTEL_SMPP_PASSWORD}, connections: 2, window: 20 }
//   routes:
//     - { route: T, prefix: "", connectors: [{ name: airtel-t, weight: 1 }] }
//   cost_cards:
//     airtel-t: costs/airtel.csv      # or a list of { channel, route, prefix, price } rows
//
// `${NAME}` in any string is replaced by the environment variable NAME (unset: an error), so
// secrets need not sit in the file. Applied at every start (carriers-document.ts applyCarriersDocument).
import fs from "node:fs/promises";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import type { Clock } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import type { Store } from "../../base/store/store.js";
import { applyCarriersDocument, type CarriersDocument } from "./carriers-document.js";

export class CarriersFileError extends Error {
  override readonly name = "CarriersFileError";
}

function substitute(value: unknown, env: Record<string, string | undefined>, where: string): unknown {
  if (typeof value === "string") {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_whole, name: string) => {
      // Own variables only: `${constructor}` is not Object's.
      const found = Object.hasOwn(env, name) ? env[name] : undefined;
      if (found === undefined) throw new CarriersFileError(`${where} uses \${${name}}, which is not set.`);
      return found;
    });
  }
  if (Array.isArray(value)) return value.map((item, index) => substitute(item, env, `${where}[${index}]`));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, substitute(item, env, `${where}.${key}`)]),
    );
  }
  return value;
}

/** A JSON or YAML file as an object, with ${NAME} filled in from `env`. */
async function readObject(file: string, env: Record<string, string | undefined>): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch (error) {
    throw new CarriersFileError(`Cannot read the carriers file ${file}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = /\.ya?ml$/i.test(file) ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    throw new CarriersFileError(`The carriers file ${file} does not parse: ${(error as Error).message}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new CarriersFileError(`The carriers file ${file} must hold an object.`);
  }
  return substitute(parsed, env, file) as Record<string, unknown>;
}

/** Reads and parses a carriers file (connectors and routes); the error names the file and what is wrong. */
export async function readCarriersFile(
  file: string,
  env: Record<string, string | undefined> = process.env,
): Promise<CarriersDocument> {
  const document = await readObject(file, env);
  const unknown = Object.keys(document).filter((key) => !["connectors", "routes", "cost_cards"].includes(key));
  if (unknown.length > 0) {
    throw new CarriersFileError(
      `The carriers file ${file} has unknown key(s) ${unknown.join(", ")}; it holds connectors, routes and cost_cards.`,
    );
  }
  for (const key of ["connectors", "routes"] as const) {
    if (document[key] !== undefined && !Array.isArray(document[key])) {
      throw new CarriersFileError(`In the carriers file ${file}, ${key} must be a list.`);
    }
  }
  const cards = document.cost_cards;
  if (cards !== undefined && (typeof cards !== "object" || cards === null || Array.isArray(cards))) {
    throw new CarriersFileError(
      `In the carriers file ${file}, cost_cards must map each connector to its rows or to a CSV file.`,
    );
  }
  if (cards) document.cost_cards = await costCardFiles(file, cards as Record<string, unknown>);
  return document as CarriersDocument;
}

/** A cost card named by its CSV file (relative to the carriers file) is read into its text. */
async function costCardFiles(file: string, cards: Record<string, unknown>): Promise<Record<string, unknown>> {
  const read = async ([connector, card]: [string, unknown]) => {
    if (typeof card !== "string") return [connector, card] as const;
    const csv = path.resolve(path.dirname(file), card);
    try {
      return [connector, await fs.readFile(csv, "utf8")] as const;
    } catch (error) {
      throw new CarriersFileError(`Cannot read the cost card of ${connector}, ${csv}: ${(error as Error).message}`);
    }
  };
  return Object.fromEntries(await Promise.all(Object.entries(cards).map(read)));
}

/** One connector's definition from a JSON or YAML file (the CLI's `carriers add --file`). */
export function readDefinitionFile(
  file: string,
  env: Record<string, string | undefined> = process.env,
): Promise<Record<string, unknown>> {
  return readObject(file, env);
}

/** Reads the file and applies it; configuration errors become CarriersFileError naming the file. */
export async function applyCarriersFile(
  deps: { store: Store; clock: Clock },
  file: string,
  env: Record<string, string | undefined> = process.env,
): Promise<{ connectors: number; routes: number | null; cost_cards: number }> {
  const document = await readCarriersFile(file, env);
  try {
    return await applyCarriersDocument(deps, document);
  } catch (error) {
    if (error instanceof GatewayError) throw new CarriersFileError(`The carriers file ${file}: ${error.message}`);
    throw error;
  }
}
