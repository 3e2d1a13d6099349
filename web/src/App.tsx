// The app shell: the sign-in page when nobody is signed in, otherwise the header (console-header.tsx)
// with the navigation of the account holder or of the operator, and the page the URL names.
import { type ComponentType, lazy, Suspense, useEffect, useRef } from "react";
import { ApiError } from "./api.js";
import { ConsoleHeader, type NavGroup } from "./console-header.js";
import { Invitation } from "./pages/Invitation.js";
import { Overview } from "./pages/Overview.js";
import { SignIn } from "./pages/SignIn.js";
import { match, useLocation } from "./router.js";
import { canDo, useSession } from "./session.js";
import type { Capability } from "./types.js";
import { Busy, ErrorNotice } from "./ui.js";
import { ViewBanner } from "./view-banner.js";

interface Route {
  path: string;
  title: string;
  component: ComponentType<{ params: Record<string, string> }>;
  /** Shown in the navigation. */
  nav?: boolean;
  /** Shown to a user whose role has one of these (the API refuses the others' calls all the same). */
  needs?: readonly Capability[];
}

const Messages = lazy(() => import("./pages/Messages.js"));
const MessagePage = lazy(() => import("./pages/Message.js"));
const Send = lazy(() => import("./pages/Send.js"));
const Bulk = lazy(() => import("./pages/Bulk.js"));
const BulkJob = lazy(() => import("./pages/BulkJob.js"));
const Contacts = lazy(() => import("./pages/Contacts.js"));
const Group = lazy(() => import("./pages/Group.js"));
const Templates = lazy(() => import("./pages/Templates.js"));
const Registrations = lazy(() => import("./pages/Registrations.js"));
const Inbound = lazy(() => import("./pages/Inbound.js"));
const Credits = lazy(() => import("./pages/Credits.js"));
const Keys = lazy(() => import("./pages/Keys.js"));
const TwoFactor = lazy(() => import("./pages/TwoFactor.js"));
const SubAccounts = lazy(() => import("./pages/SubAccounts.js"));
const Webhooks = lazy(() => import("./pages/Webhooks.js"));
const Smpp = lazy(() => import("./pages/Smpp.js"));
const OperatorAccounts = lazy(() => import("./pages/operator/Accounts.js"));
const OperatorAccount = lazy(() => import("./pages/operator/Account.js"));
const Approvals = lazy(() => import("./pages/operator/Approvals.js"));
const Carriers = lazy(() => import("./pages/operator/Carriers.js"));
const ErrorCodes = lazy(() => import("./pages/operator/ErrorCodes.js"));
const Refunds = lazy(() => import("./pages/operator/Refunds.js"));
const Dnd = lazy(() => import("./pages/operator/Dnd.js"));
const System = lazy(() => import("./pages/operator/System.js"));
const OperatorMessages = lazy(() => import("./pages/operator/Messages.js"));
const OperatorMessage = lazy(() => import("./pages/operator/Message.js"));
const AccountViews = lazy(() => import("./pages/operator/Views.js"));
const Refusals = lazy(() => import("./pages/Refusals.js"));
const Verify = lazy(() => import("./pages/Verify.js"));
const OperatorRefusals = lazy(() => import("./pages/operator/Refusals.js"));
const Audit = lazy(() => import("./pages/Audit.js"));
const OperatorAudit = lazy(() => import("./pages/operator/Audit.js"));
const Alerts = lazy(() => import("./pages/operator/Alerts.js"));
const Analytics = lazy(() => import("./pages/operator/Analytics.js"));
const Margin = lazy(() => import("./pages/operator/Margin.js"));
const PriceCards = lazy(() => import("./pages/operator/PriceCards.js"));
const PriceCard = lazy(() => import("./pages/operator/PriceCard.js"));
const Users = lazy(() => import("./pages/Users.js"));
const Sessions = lazy(() => import("./pages/Sessions.js"));
const Staff = lazy(() => import("./pages/operator/Staff.js"));

export const ACCOUNT_ROUTES: Route[] = [
  { path: "/", title: "Overview", component: Overview, nav: true },
  { path: "/messages", title: "Messages", component: Messages, nav: true, needs: ["read"] },
  { path: "/messages/:id", title: "Message", component: MessagePage, needs: ["read"] },
  { path: "/send", title: "Send", component: Send, nav: true, needs: ["send"] },
  { path: "/bulk", title: "Bulk", component: Bulk, nav: true, needs: ["send"] },
  { path: "/bulk/:id", title: "Bulk job", component: BulkJob },
  { path: "/contacts", title: "Contacts", component: Contacts, nav: true, needs: ["read"] },
  { path: "/contacts/:id", title: "Contact group", component: Group, needs: ["read"] },
  { path: "/templates", title: "Templates", component: Templates, nav: true, needs: ["read"] },
  { path: "/registrations", title: "Registrations", component: Registrations, nav: true, needs: ["read"] },
  { path: "/inbound", title: "Inbound", component: Inbound, nav: true, needs: ["read"] },
  { path: "/refusals", title: "Refusals", component: Refusals, nav: true, needs: ["read"] },
  { path: "/verify", title: "Verify", component: Verify, nav: true, needs: ["read"] },
  { path: "/credits", title: "Credits", component: Credits, nav: true, needs: ["money"] },
  { path: "/audit", title: "Audit log", component: Audit, nav: true, needs: ["read"] },
  { path: "/settings/webhooks", title: "Webhooks", component: Webhooks, nav: true, needs: ["develop"] },
  { path: "/settings/keys", title: "API keys", component: Keys, nav: true, needs: ["develop"] },
  { path: "/settings/smpp", title: "SMPP", component: Smpp, nav: true, needs: ["develop"] },
  { path: "/settings/two-factor", title: "Two-factor", component: TwoFactor, nav: true },
  { path: "/subaccounts", title: "Sub-accounts", component: SubAccounts, nav: true, needs: ["read", "money"] },
  { path: "/settings/users", title: "Users", component: Users, nav: true, needs: ["manage"] },
  { path: "/settings/sessions", title: "Sessions", component: Sessions, nav: true },
];

export const OPERATOR_ROUTES: Route[] = [
  { path: "/operator/accounts", title: "Accounts", component: OperatorAccounts, nav: true },
  { path: "/operator/accounts/:username", title: "Account", component: OperatorAccount },
  { path: "/operator/approvals", title: "Approvals", component: Approvals, nav: true },
  { path: "/operator/carriers", title: "Carriers", component: Carriers, nav: true },
  { path: "/operator/carriers/:name/error-codes", title: "Error codes", component: ErrorCodes },
  { path: "/operator/refunds", title: "Carrier refunds", component: Refunds, nav: true },
  { path: "/operator/refusals", title: "Refusals", component: OperatorRefusals, nav: true },
  { path: "/operator/dnd", title: "DND registry", component: Dnd, nav: true, needs: ["staff_read"] },
  { path: "/operator/system", title: "System", component: System, nav: true },
  { path: "/operator/messages", title: "All messages", component: OperatorMessages, nav: true },
  { path: "/operator/messages/:id", title: "Message", component: OperatorMessage },
  { path: "/operator/views", title: "Account views", component: AccountViews, nav: true },
  { path: "/operator/audit", title: "Audit log", component: OperatorAudit, nav: true },
  { path: "/operator/alerts", title: "Alerts", component: Alerts, nav: true },
  { path: "/operator/analytics", title: "Analytics", component: Analytics, nav: true },
  { path: "/operator/margin", title: "Margin", component: Margin, nav: true },
  { path: "/operator/price-cards", title: "Price cards", component: PriceCards, nav: true, needs: ["staff_read"] },
  { path: "/operator/price-cards/:name", title: "Price card", component: PriceCard, needs: ["staff_read"] },
  { path: "/operator/staff", title: "Staff", component: Staff, nav: true },
];

function RoleRefused() {
  const { session } = useSession();
  return (
    <>
      <h1 tabIndex={-1}>Not for your role</h1>
      <ErrorNotice
        error={new ApiError(403, "insufficient_role", `The role ${session?.user_role ?? ""} cannot use this page.`)}
      />
    </>
  );
}

function NotFound() {
  return (
    <>
      <h1 tabIndex={-1}>Not found</h1>
      <ErrorNotice error={new ApiError(404, "not_found", "There is no such page in the console.")} />
    </>
  );
}

export function App() {
  const { session } = useSession();
  const { path } = useLocation();
  const main = useRef<HTMLElement>(null);

  const routes = session?.role === "operator" ? [...OPERATOR_ROUTES, ...ACCOUNT_ROUTES] : ACCOUNT_ROUTES;
  let found: { route: Route; params: Record<string, string> } | undefined;
  for (const route of routes) {
    const params = match(route.path, path);
    if (params) {
      found = { route, params };
      break;
    }
  }
  const title = found?.route.title ?? "Not found";

  useEffect(() => {
    document.title = session ? `${title} · Switchboard Console` : "Sign in · Switchboard Console";
  }, [title, session]);

  // After a navigation, move focus to the page's heading so a screen reader announces it.
  const firstRender = useRef(true);
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on every navigation, which `path` stands for
  useEffect(() => {
    if (firstRender.current) {
      firstRender.current = false;
      return;
    }
    const heading = main.current?.querySelector("h1");
    heading?.focus();
  }, [path]);

  // An invitation's link is opened signed out, or over another's session.
  if (path === "/invitation") return <Invitation />;
  if (session === undefined) return <Busy label="Loading the console…" />;
  if (session === null) return <SignIn />;
  const allowed = (route: Route) => !route.needs || route.needs.some((need) => canDo(session, need));
  const shown = (route: Route) => route.nav && allowed(route);

  // A page the role cannot use, opened by its URL, says so (its calls would be refused anyway).
  const Page = found ? (allowed(found.route) ? found.route.component : RoleRefused) : NotFound;
  const group = (label: string, routes: Route[]): NavGroup => ({
    label,
    links: routes
      .filter(shown)
      .map((route) => ({ path: route.path, title: route.title, current: found?.route === route })),
  });
  const navGroups =
    session.role === "operator"
      ? [group("Operator", OPERATOR_ROUTES), group("Account", ACCOUNT_ROUTES)]
      : [group("Main", ACCOUNT_ROUTES)];
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <ViewBanner session={session} />
      <ConsoleHeader session={session} groups={navGroups} />
      <main id="main" ref={main}>
        <Suspense fallback={<Busy />}>
          <Page params={found?.params ?? {}} />
        </Suspense>
      </main>
    </>
  );
}
