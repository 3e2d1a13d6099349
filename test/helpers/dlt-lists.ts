// An entity's DLT white-lists as the SMS rules index them (base/core/dlt-links.ts), built from
// URLs and callback numbers as an operator approves them: for the tests of link and number checks.
import {
  type EntityLinks,
  emptyEntityLinks,
  indexUrl,
  normalizeApprovedUrl,
  normalizeCallbackNumber,
} from "../../src/base/core/dlt-links.js";

export function entityLists(urls: string[], numbers: string[] = []): EntityLinks {
  const links = emptyEntityLinks();
  for (const url of urls) indexUrl(links, normalizeApprovedUrl(url));
  for (const number of numbers) links.callbacks.add(normalizeCallbackNumber(number));
  return links;
}
