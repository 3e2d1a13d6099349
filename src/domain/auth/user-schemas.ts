// The answers of the users, staff, sessions and password routes as schemas (typebox only: the
// console types its Users, Staff and Sessions pages with them).
import { Type } from "typebox";
import { NullableString, NullableTime, OneOf, Time } from "../../base/http/answer-schemas.js";

export const User = Type.Object({
  login: Type.String(),
  email: NullableString(),
  display_name: NullableString(),
  user_role: Type.String(),
  /** `invited` until the invitation's link sets a password. */
  status: OneOf(["active", "invited"] as const),
  invitation_expires_at: NullableTime(),
  created_at: Time,
});

/** A user just added: an invitation's link is in this answer only (and in its email). */
export const CreatedUser = Type.Object({
  ...User.properties,
  invitation: Type.Optional(
    Type.Object({
      url: Type.String(),
      expires_at: Time,
      /** Whether it was emailed (SMTP_URL set and the user has an email). */
      emailed: Type.Boolean(),
    }),
  ),
});

export const UserList = Type.Array(User);

export const ConsoleSession = Type.Object({
  id: Type.Integer(),
  /** The browser's User-Agent. */
  device: NullableString(),
  address: Type.String(),
  signed_in_at: Time,
  last_used_at: Time,
  expires_at: Time,
  /** The session this request came with. */
  current: Type.Boolean(),
});

export const SessionList = Type.Array(ConsoleSession);

export const SessionsEnded = Type.Object({ ended: Type.Integer() });
export const UserRemoved = Type.Object({ login: Type.String(), removed: Type.Boolean() });

/** An invitation as its link's page shows it before the password is set. */
export const Invitation = Type.Object({
  account: Type.String(),
  login: Type.String(),
  user_role: Type.String(),
  expires_at: Time,
});

/** A login's own password changed (PUT /api/v2/password). */
export const PasswordChanged = Type.Object(
  {
    login: Type.String(),
    /** The login's other console sessions, ended by the change (the one it came with stays). */
    sessions_ended: Type.Integer(),
  },
  { title: "PasswordChanged" },
);
