// How the operator adds each registration an account needs before it can send: the exact CLI
// command and operator-API call. Refusals (-31, -32, …) and `accounts show` quote these, so a
// missing registration always comes with the one line that fixes it.
import type { Wallet } from "../../base/core/credits.js";

export interface RegistrationFix {
  /** The CLI command, ready to paste (placeholders in <ANGLE_BRACKETS>). */
  command: string;
  /** The same through the operator API: method, path and JSON body. */
  api: string;
}

/** A word as a POSIX shell reads it back unchanged: quoted unless it is plainly safe. */
function shellWord(value: string): string {
  return /^[A-Za-z0-9_.@~:,=+-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** A value to paste, quoted as needed; a placeholder (no value given) stays as it is written. */
function shellValue(value: string | undefined, placeholder: string): string {
  return value === undefined ? placeholder : shellWord(value);
}

function fix(command: string, api: string): RegistrationFix {
  return { command: `switchboard ${command}`, api };
}

const account = (username: string) => `/admin/api/accounts/${encodeURIComponent(username)}`;

export const registrationFixes = {
  senderId(username: string, sender?: string): RegistrationFix {
    return fix(
      `sender-ids add --account ${shellWord(username)} --sender ${shellValue(sender, "<SENDER>")} --approve`,
      `POST ${account(username)}/sender-ids {"sender":${JSON.stringify(sender ?? "<SENDER>")},"approve":true}`,
    );
  },
  senderApproval(id: number): RegistrationFix {
    return fix(`sender-ids approve --id ${id}`, `POST /admin/api/sender-ids/${id}/approve`);
  },
  dltHeader(username: string, header?: string): RegistrationFix {
    return fix(
      `dlt headers add --account ${shellWord(username)} --header ${shellValue(header, "<HEADER>")}`,
      `POST ${account(username)}/dlt/headers {"header":${JSON.stringify(header ?? "<HEADER>")}}`,
    );
  },
  dltEntity(username: string, entityId?: string): RegistrationFix {
    return fix(
      `dlt entities add --account ${shellWord(username)} --entity-id ${shellValue(entityId, "<ENTITY_ID>")}`,
      `POST ${account(username)}/dlt/entities {"entity_id":${JSON.stringify(entityId ?? "<ENTITY_ID>")}}`,
    );
  },
  defaultDltEntity(username: string, entityId?: string): RegistrationFix {
    return fix(
      `accounts set --username ${shellWord(username)} --dlt-entity ${shellValue(entityId, "<ENTITY_ID>")}`,
      `PATCH ${account(username)} {"default_dlt_entity_id":${JSON.stringify(entityId ?? "<ENTITY_ID>")}}`,
    );
  },
  template(username: string): RegistrationFix {
    return fix(
      `templates add --account ${shellWord(username)} --name <NAME> --content '<TEXT with {#var#}>' --approve`,
      `POST ${account(username)}/templates {"name":"<NAME>","content":"<TEXT with {#var#}>","approve":true}`,
    );
  },
  templateApproval(id: number): RegistrationFix {
    return fix(`templates approve --id ${id}`, `POST /admin/api/templates/${id}/approve`);
  },
  credits(username: string, wallet: Wallet): RegistrationFix {
    return fix(
      `credits add --account ${shellWord(username)} --wallet ${wallet} --amount <CREDITS>`,
      `POST ${account(username)}/credits {"wallet":"${wallet}","amount":<CREDITS>}`,
    );
  },
  activation(username: string): RegistrationFix {
    return fix(
      `accounts set --username ${shellWord(username)} --status active`,
      `PATCH ${account(username)} {"status":"active"}`,
    );
  },
};

/** The sentence a refusal ends with: who adds the registration, and how. */
export function operatorFixSentence(fixed: RegistrationFix): string {
  return `The operator adds it with \`${fixed.command}\` (operator API: ${fixed.api}).`;
}
