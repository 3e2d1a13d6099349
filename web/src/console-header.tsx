// The console's header: the brand, the navigation, who is signed in and Sign out. On a phone the
// navigation and who is signed in sit behind a Menu button (a disclosure: Escape or a chosen link
// closes it), so the header is one line instead of most of the screen; wider, they show in it.
import { useEffect, useRef, useState } from "react";
import { Link, navigate, useLocation } from "./router.js";
import { type SessionInfo, useSession } from "./session.js";

export interface NavGroup {
  label: string;
  links: { path: string; title: string; current: boolean }[];
}

const MENU_ID = "console-menu";

export function ConsoleHeader({ session, groups }: { session: SessionInfo; groups: NavGroup[] }) {
  const { signOut } = useSession();
  const { path } = useLocation();
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);

  // A link chosen in the menu, or any other navigation, closes it.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on every navigation, which `path` stands for
  useEffect(() => {
    setOpen(false);
  }, [path]);

  useEffect(() => {
    if (!open) return;
    const closeOnEscape = (event: KeyboardEvent) => {
      if (event.key !== "Escape") return;
      setOpen(false);
      button.current?.focus();
    };
    document.addEventListener("keydown", closeOnEscape);
    return () => document.removeEventListener("keydown", closeOnEscape);
  }, [open]);

  return (
    <header className="top">
      <Link to={session.role === "operator" ? "/operator/accounts" : "/"} className="brand">
        Switchboard
      </Link>
      <button
        ref={button}
        type="button"
        className="menu-button"
        aria-expanded={open}
        aria-controls={MENU_ID}
        onClick={() => setOpen(!open)}
      >
        Menu
      </button>
      <div id={MENU_ID} className={open ? "menu open" : "menu"}>
        {groups.map((group) => (
          <nav aria-label={group.label} key={group.label}>
            <ul>
              {group.links.map((link) => (
                <li key={link.path}>
                  <Link to={link.path} aria-current={link.current ? "page" : undefined} onClick={() => setOpen(false)}>
                    {link.title}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
        ))}
        <span className="who">
          {session.login === session.username ? session.username : `${session.login} @ ${session.username}`}
          {session.role === "operator" ? " (operator)" : ""} · {session.user_role} · {session.time_zone}
        </span>
      </div>
      <button
        type="button"
        className="sign-out"
        onClick={() => {
          void signOut().then(() => navigate("/", { replace: true }));
        }}
      >
        Sign out
      </button>
    </header>
  );
}
