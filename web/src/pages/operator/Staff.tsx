// The operator's staff (/admin/api/staff): the users of the operator's account, with staff roles.
import { UserAdmin } from "../Users.js";

export default function Staff() {
  return <UserAdmin kind="staff" />;
}
