// CLI commands for an account's users (`users … --account U`) and the operator's staff (`staff …`,
// the users of the operator-role account): list, add (with a password, or an invitation whose
// link is printed and mailed through SMTP_URL), set, remove, and invite (a new link for a user
// still invited; the old one stops working). They call auth/users.ts, as /api/v2/users and
// /admin/api/staff do; the audit log records them as `cli` with the operating-system user and host.
import type { Command } from "commander";
import { isoUtc } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import { loadConfig } from "../../base/runtime/config.js";
import type { Store } from "../../base/store/store.js";
import { listAccounts, requireAccount } from "../../domain/accounts/index.js";
import {
  createUser,
  deleteUser,
  listUsers,
  ownerRoleOf,
  reissueInvitation,
  type UsersAccount,
  updateUser,
} from "../../domain/auth/index.js";
import { invitationMailer, invitationUrl } from "../invitation-mail.js";
import { groupCommand } from "./cli-group-names.js";
import { cliDeps, print, table, withStore } from "./cli-support.js";

/** Whose users a command acts on: `--account`'s, or the operator account's. */
type AccountOf = (store: Store, opts: { account?: string; operator?: string }) => Promise<UsersAccount>;

const customerAccount: AccountOf = async (store, opts) => {
  const account = await requireAccount(store.db, opts.account ?? "");
  if (account.role === "operator") {
    throw new GatewayError(
      "invalid_request",
      `${account.username} is an operator account: use \`staff\` for its users.`,
    );
  }
  return account;
};

/** The operator account named by --operator, or the only one there is. */
const operatorAccount: AccountOf = async (store, opts) => {
  if (opts.operator !== undefined) {
    const account = await requireAccount(store.db, opts.operator);
    if (account.role !== "operator") {
      throw new GatewayError("invalid_request", `${account.username} is not an operator account.`);
    }
    return account;
  }
  const operators = (await listAccounts(store.db)).filter((account) => account.role === "operator");
  if (operators.length !== 1) {
    const names = operators.map((account) => account.username).join(", ");
    throw new GatewayError(
      "invalid_request",
      operators.length === 0 ? "There is no operator account." : `Name one with --operator: ${names}.`,
    );
  }
  return operators[0]!;
};

/** The CLI acting on an account's users: the CLI as the actor, with the account's owner role. */
function who(store: Store, account: UsersAccount) {
  return { ...cliDeps(store), role: ownerRoleOf(account.role) };
}

/** The link of an invitation, printed and mailed (when SMTP_URL is set and the user has an email). */
async function linkOf(
  account: UsersAccount,
  user: { login: string; email: string | null },
  invitation: { token: string; expiresAt: number },
  consoleUrl: string | undefined,
) {
  const config = loadConfig();
  const url = invitationUrl(consoleUrl ?? config.publicUrl ?? `http://localhost:${config.port}`, invitation.token);
  const mailer = invitationMailer(config, (error) =>
    process.stderr.write(`the invitation email could not be sent: ${(error as Error).message}\n`),
  );
  try {
    const emailed = await mailer.send(user.email, account.username, user.login, url);
    return { url, expires_at: isoUtc(new Date(invitation.expiresAt)), emailed };
  } finally {
    mailer.close();
  }
}

const invitationText = (login: string, link: { url: string; emailed: boolean; expires_at: string }) =>
  `invitation link for ${login} (works once, until ${link.expires_at}${link.emailed ? "; emailed" : "; not emailed"}):\n${link.url}`;

function addUserGroup(program: Command, name: "users" | "staff", accountOf: AccountOf): void {
  const group = groupCommand(program, name);
  const whose = (command: Command) =>
    name === "users"
      ? command.requiredOption("--account <username>", "the account")
      : command.option("--operator <username>", "the operator account (default: the only one)");
  const roles =
    name === "users"
      ? "owner, admin, developer, support, billing"
      : "operator_admin, operator_support, operator_finance";
  const consoleUrl = "--console-url <url>";
  const consoleHelp = "the console's address as users reach it, for the link (default http://localhost:PORT)";

  whose(group.command("list").description(name === "users" ? "an account's users" : "the operator's staff"))
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const rows = await listUsers(store.db, (await accountOf(store, opts)).id);
        print(rows, opts.json, () =>
          table(
            ["LOGIN", "ROLE", "STATUS", "EMAIL", "NAME", "INVITATION EXPIRES"],
            rows.map((u) => [u.login, u.user_role, u.status, u.email, u.display_name, u.invitation_expires_at]),
            name === "users" ? "no users" : "no staff",
          ),
        );
      }),
    );

  whose(
    group
      .command("add")
      .description("add one: with --password ready to sign in, else invited by a link (printed, and emailed)"),
  )
    .requiredOption("--login <login>", "1-64 letters, digits, . _ @ - (stored lower-cased)")
    .requiredOption("--role <role>", roles)
    .option("--email <address>", "where the invitation is mailed")
    .option("--password <password>", "at least 8 characters; left out, an invitation")
    .option("--name <name>", "a display name")
    .option(consoleUrl, consoleHelp)
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const account = await accountOf(store, opts);
        const { user, invitation } = await createUser(store, who(store, account), account, {
          login: opts.login,
          user_role: opts.role,
          email: opts.email,
          password: opts.password,
          display_name: opts.name,
        });
        const link = invitation ? await linkOf(account, user, invitation, opts.consoleUrl) : undefined;
        print({ ...user, ...(link ? { invitation: link } : {}) }, opts.json, () =>
          link
            ? `invited ${user.login} (${user.user_role}) to ${account.username}; ${invitationText(user.login, link)}`
            : `added ${user.login} (${user.user_role}) to ${account.username}`,
        );
      }),
    );

  whose(
    group
      .command("set")
      .description("change one's role, email, name or password (a new role or password ends their sessions)"),
  )
    .requiredOption("--login <login>", "the user")
    .option("--role <role>", roles)
    .option("--email <address>", "a new email")
    .option("--password <password>", "a new password (at least 8 characters)")
    .option("--name <name>", "a new display name")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const account = await accountOf(store, opts);
        const changes = {
          ...(opts.role !== undefined ? { user_role: opts.role } : {}),
          ...(opts.email !== undefined ? { email: opts.email } : {}),
          ...(opts.password !== undefined ? { password: opts.password } : {}),
          ...(opts.name !== undefined ? { display_name: opts.name } : {}),
        };
        if (Object.keys(changes).length === 0) {
          throw new GatewayError("invalid_request", "Give at least one of --role, --email, --password, --name.");
        }
        const user = await updateUser(store, who(store, account), account, opts.login, changes);
        print(user, opts.json, () => `changed ${user.login} of ${account.username}: ${user.user_role}`);
      }),
    );

  whose(group.command("remove").description("remove one; their sessions end"))
    .requiredOption("--login <login>", "the user")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const account = await accountOf(store, opts);
        await deleteUser(store, who(store, account), account, opts.login);
        const removed = { login: opts.login.toLowerCase(), removed: true };
        print(removed, opts.json, () => `removed ${removed.login} from ${account.username}`);
      }),
    );

  whose(
    group
      .command("invite")
      .description("send an invited user a new link (printed, and emailed); the old one stops working"),
  )
    .requiredOption("--login <login>", "the invited user")
    .option(consoleUrl, consoleHelp)
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const account = await accountOf(store, opts);
        const { user, invitation } = await reissueInvitation(store, who(store, account), account, opts.login);
        const link = await linkOf(account, user, invitation, opts.consoleUrl);
        print({ ...user, invitation: link }, opts.json, () => invitationText(user.login, link));
      }),
    );
}

export function addUserCommands(program: Command): void {
  addUserGroup(program, "users", customerAccount);
  addUserGroup(program, "staff", operatorAccount);
}
