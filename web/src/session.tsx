// Who is signed in: read from GET /console/session at start (a reload keeps the session),
// set by the sign-in form, ended by sign-out or by any API call that finds it gone.
import { useQueryClient } from "@tanstack/react-query";
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from "react";
import { ApiError, data, setCsrfToken, whenSessionEnds } from "./api.js";
import { type Capability, ROLE_CAPABILITIES, type UserRole } from "./types.js";

export interface SessionInfo {
  username: string;
  role: "customer" | "operator";
  /** The user signed in: the username for the account's own (owner) login. */
  login: string;
  /** Their role (decision 0126): what the console shows them. */
  user_role: UserRole;
  time_zone: string;
  csrf_token: string;
  expires_at: string;
  idle_expires_at: string;
  /** An operator's read-only view of this account: the operator's username. */
  viewer?: string;
  read_only?: boolean;
}

/** A sign-in whose password passed and that takes a second step: a code, or setting up a factor first. */
export interface SecondStep {
  second_step: "totp" | "enrol";
  challenge: string;
  expires_at: string;
}

interface SessionState {
  /** undefined while the first check runs; null when nobody is signed in. */
  session: SessionInfo | null | undefined;
  /** Why the last session ended, told on the sign-in page. */
  endedNotice: string | undefined;
  /** `login`: one of the account's users; empty, the account's own login. */
  signIn(username: string, password: string, login?: string): Promise<SessionInfo | SecondStep>;
  /** The second step of a sign-in: a code from the app, or a recovery code. */
  completeSignIn(challenge: string, code: string): Promise<SessionInfo>;
  /** Takes a session the console opened another way (an enrolment at sign-in). */
  adoptSession(session: SessionInfo): void;
  signOut(): Promise<void>;
  /** "View as this account": the account's console, read-only, for an operator. */
  openView(username: string): Promise<SessionInfo>;
  /** Closes the view: the operator's own session again. */
  closeView(): Promise<void>;
}

const SessionContext = createContext<SessionState | undefined>(undefined);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<SessionInfo | null | undefined>(undefined);
  const [endedNotice, setEndedNotice] = useState<string>();
  const queryClient = useQueryClient();

  const adopt = useCallback(
    (next: SessionInfo | null) => {
      setCsrfToken(next?.csrf_token);
      if (!next) queryClient.clear();
      setSession(next);
    },
    [queryClient],
  );

  useEffect(() => {
    let live = true;
    data<SessionInfo>("/console/session")
      .then((found) => live && adopt(found))
      .catch(() => live && adopt(null));
    whenSessionEnds(() => {
      setEndedNotice("Your session has ended (signed out or expired). Sign in again.");
      adopt(null);
    });
    return () => {
      live = false;
      whenSessionEnds(undefined);
    };
  }, [adopt]);

  const value = useMemo<SessionState>(
    () => ({
      session,
      endedNotice,
      async signIn(username, password, login) {
        const json = login ? { username, login, password } : { username, password };
        const started = await data<SessionInfo | SecondStep>("/console/session", { json });
        setEndedNotice(undefined);
        if (!("second_step" in started)) adopt(started);
        return started;
      },
      async completeSignIn(challenge, code) {
        const started = await data<SessionInfo>("/console/session/totp", { json: { challenge, code } });
        adopt(started);
        return started;
      },
      adoptSession(started) {
        setEndedNotice(undefined);
        adopt(started);
      },
      async signOut() {
        try {
          await data("/console/session", { method: "DELETE" });
        } catch (error) {
          if (!(error instanceof ApiError && error.status === 401)) throw error;
        }
        setEndedNotice("You are signed out.");
        adopt(null);
      },
      async openView(username) {
        const view = await data<SessionInfo>("/console/session/view", { json: { username } });
        // Nothing the operator's pages loaded may show as the account's, nor the other way round.
        queryClient.clear();
        adopt(view);
        return view;
      },
      async closeView() {
        await data("/console/session/view", { method: "DELETE" });
        const own = await data<SessionInfo>("/console/session");
        queryClient.clear();
        adopt(own);
      },
    }),
    [session, endedNotice, adopt, queryClient],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error("useSession outside SessionProvider");
  return state;
}

/** The signed-in session (pages under the shell only). */
export function useSignedIn(): SessionInfo {
  const { session } = useSession();
  if (!session) throw new Error("not signed in");
  return session;
}

/** Whether the signed-in user's role has `capability` (what the console shows them; the API checks it too). */
export function canDo(session: Pick<SessionInfo, "user_role">, capability: Capability): boolean {
  return (ROLE_CAPABILITIES[session.user_role] ?? []).includes(capability);
}
