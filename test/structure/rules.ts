// The rooms of src/ and the rules the structure test holds them to (docs/ARCHITECTURE.md, "Rooms").
//
// src/ holds five rooms, lowest first; a room imports only itself and the rooms below it. Inside a
// room its folders keep finer tiers, lowest first: a folder imports folders of its own tier or of
// lower ones, never a higher one. Folders must not import each other in a circle, and files must not
// either. A folder that has an index.ts is entered only through it from outside (its inner files are
// its own). `app` (the files at the top of src/app/) is a folder of the app room.
export const ROOMS = ["base", "domain", "delivery", "channels", "app"] as const;
export type Room = (typeof ROOMS)[number];

export const TIERS: Readonly<Record<Room, readonly (readonly string[])[]>> = {
  // What any server needs: the database, domain primitives, settings and logs, HTTP plumbing, the SMPP codec.
  base: [["store"], ["core"], ["runtime"], ["http", "smpp"]],
  // The business's records: the audit log of changes, who calls, accounts and money, contacts, messages, webhooks.
  domain: [["audit"], ["auth"], ["accounts"], ["messages", "webhooks", "contacts", "refusals"]],
  // Getting messages out: the dispatcher and its simulators, the carriers' connectors, the alerts.
  delivery: [["dispatch"], ["carriers"], ["alerts"]],
  // The API families and protocols, each a thin adapter over the rooms below.
  channels: [["voice", "email", "whatsapp", "inbound"], ["sms"], ["smpp-server", "verify", "chains"]],
  // The assembly: the operator API, the console's pages, the gateway and its roles, the CLI.
  app: [["admin", "console"], ["app"], ["cli"]],
};

/** The folders of every room, as `room/folder` (`app/app` is written `app`). */
export const FOLDERS: readonly string[] = ROOMS.flatMap((room) =>
  TIERS[room].flat().map((folder) => (folder === room ? room : `${room}/${folder}`)),
);

/**
 * Violations that stand today, each removed as it is fixed: the test fails on a new violation and
 * on an entry here that no longer occurs, so this list only shrinks.
 */
export const ALLOWED: readonly string[] = [];

/** The most lines a file of src/ or web/src/ may have; a longer one is split by responsibility. */
export const MAX_LINES = 400;

/** Where files may be longer (besides tests): migrations are written once and never edited. */
export const LONG_FILES_ALLOWED: readonly string[] = ["src/base/store/migrations/"];

/**
 * The arrows between rooms, `from -> to`: which rooms import which. Each points down; the test fails
 * on an arrow not listed here and on a listed one that no longer occurs, and docs/ARCHITECTURE.md
 * draws the same.
 */
export const ROOM_ARROWS: readonly string[] = [
  "app -> channels",
  "app -> delivery",
  "app -> domain",
  "app -> base",
  "channels -> delivery",
  "channels -> domain",
  "channels -> base",
  "delivery -> domain",
  "delivery -> base",
  "domain -> base",
];

/**
 * The packages a file shared with the console (console-imports.ts: every `*schemas.ts` and what
 * web/src/ imports) may import: the schemas' library, and the SMS segment counter the send form
 * shares with the pricing. Nothing of Node, Fastify, Kysely or the store.
 */
export const BROWSER_PACKAGES: readonly string[] = ["typebox", "sms-segments-calculator"];
