// How the operator adds each registration an account needs before it can send: the exact CLI
// command and operator-API call, which `accounts show` and the operator's console quote, and
// what the account asks the operator for, which a refusal of its send (-31, -32, …) ends with:
// the account cannot run the operator's commands (decision 0108).
import type { Wallet } from "../../base/core/credits.js";

export interface RegistrationFix {
  /** The CLI command, ready to paste (placeholders in <ANGLE_BRACKETS>). */
  command: string;
  /** The same through the operator API: method, path and JSON body. */
  api: string;
  /** What the account asks the operator to do, in its words: "white-list the DLT header ACME for your account". */
  ask: string;
}

/** A word as a POSIX shell reads it back unchanged: quoted unless it is plainly safe. */
function shellWord(value: string): string {
  return /^[A-Za-z0-9_.@~:,=+-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** A value to paste, quoted as needed; a placeholder (no value given) stays as it is written. */
function shellValue(value: string | undefined, placeholder: string): string {
  return value === undefined ? placeholder : shellWord(value);
}

function fix(command: string, api: string, ask: string): RegistrationFix {
  return { command: `switchboard ${command}`, api, ask };
}

const account = (username: string) => `/admin/api/accounts/${encodeURIComponent(username)}`;

export const registrationFixes = {
  senderId(username: string, sender?: string): RegistrationFix {
    return fix(
      `sender-ids add --account ${shellWord(username)} --sender ${shellValue(sender, "<SENDER>")} --approve`,
      `POST ${account(username)}/sender-ids {"sender":${JSON.stringify(sender ?? "<SENDER>")},"approve":true}`,
      sender ? `approve the sender ID ${sender} for your account` : "approve a sender ID for your account",
    );
  },
  senderApproval(id: number): RegistrationFix {
    return fix(
      `sender-ids approve --id ${id}`,
      `POST /admin/api/sender-ids/${id}/approve`,
      `approve your sender ID request ${id}`,
    );
  },
  dltHeader(username: string, header?: string): RegistrationFix {
    return fix(
      `dlt headers add --account ${shellWord(username)} --header ${shellValue(header, "<HEADER>")}`,
      `POST ${account(username)}/dlt/headers {"header":${JSON.stringify(header ?? "<HEADER>")}}`,
      header ? `white-list the DLT header ${header} for your account` : "white-list your DLT header for your account",
    );
  },
  dltEntity(username: string, entityId?: string): RegistrationFix {
    return fix(
      `dlt entities add --account ${shellWord(username)} --entity-id ${shellValue(entityId, "<ENTITY_ID>")}`,
      `POST ${account(username)}/dlt/entities {"entity_id":${JSON.stringify(entityId ?? "<ENTITY_ID>")}}`,
      entityId
        ? `white-list the DLT entity ID ${entityId} for your account`
        : "white-list your DLT entity ID for your account",
    );
  },
  dltUrl(username: string, entityId: string, url: string): RegistrationFix {
    return fix(
      `dlt urls add --account ${shellWord(username)} --entity-id ${shellWord(entityId)} --url ${shellWord(url)}`,
      `POST ${account(username)}/dlt/urls {"entity_id":${JSON.stringify(entityId)},"url":${JSON.stringify(url)}}`,
      `white-list the link ${url} for your DLT entity ${entityId} (request it: POST /api/v2/dlt/urls)`,
    );
  },
  dltChain(username: string, entityId: string): RegistrationFix {
    return fix(
      `dlt chains set --account ${shellWord(username)} --entity-id ${shellWord(entityId)} --chain <TM_ID,…>`,
      `PUT ${account(username)}/dlt/chains {"entity_id":${JSON.stringify(entityId)},"chain":["<TM_ID>",…]}`,
      `declare the telemarketer chain of your DLT entity ${entityId}`,
    );
  },
  dltCallback(username: string, entityId: string, number: string): RegistrationFix {
    return fix(
      `dlt callbacks add --account ${shellWord(username)} --entity-id ${shellWord(entityId)} --number ${shellWord(number)}`,
      `POST ${account(username)}/dlt/callbacks {"entity_id":${JSON.stringify(entityId)},"number":${JSON.stringify(number)}}`,
      `white-list the callback number ${number} for your DLT entity ${entityId} (request it: POST /api/v2/dlt/callbacks)`,
    );
  },
  defaultDltEntity(username: string, entityId?: string): RegistrationFix {
    return fix(
      `accounts set --username ${shellWord(username)} --dlt-entity ${shellValue(entityId, "<ENTITY_ID>")}`,
      `PATCH ${account(username)} {"default_dlt_entity_id":${JSON.stringify(entityId ?? "<ENTITY_ID>")}}`,
      "set the default DLT entity ID of your account",
    );
  },
  template(username: string): RegistrationFix {
    return fix(
      `templates add --account ${shellWord(username)} --name <NAME> --content '<TEXT with {#var#}>' --approve`,
      `POST ${account(username)}/templates {"name":"<NAME>","content":"<TEXT with {#var#}>","approve":true}`,
      "approve a DLT template this text matches (register it first: POST /api/v2/templates, or Templates in the console)",
    );
  },
  templateApproval(id: number): RegistrationFix {
    return fix(
      `templates approve --id ${id}`,
      `POST /admin/api/templates/${id}/approve`,
      `approve your template ${id}`,
    );
  },
  credits(username: string, wallet: Wallet): RegistrationFix {
    return fix(
      `credits add --account ${shellWord(username)} --wallet ${wallet} --amount <CREDITS>`,
      `POST ${account(username)}/credits {"wallet":"${wallet}","amount":<CREDITS>}`,
      `add credits to your ${wallet} wallet`,
    );
  },
  activation(username: string): RegistrationFix {
    return fix(
      `accounts set --username ${shellWord(username)} --status active`,
      `PATCH ${account(username)} {"status":"active"}`,
      "activate your account",
    );
  },
};

/** The sentence a refusal of an account's send ends with: what to ask the operator for. */
export function askOperatorSentence(fixed: RegistrationFix): string {
  return `Ask the operator to ${fixed.ask}.`;
}
