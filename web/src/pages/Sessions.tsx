// Your login: your signed-in sessions (/api/v2/sessions: device, address, last use; end one, or
// every other one, this one stays) and your password (password-change.tsx).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { data } from "../api.js";
import { formatTime } from "../format.js";
import { useSignedIn } from "../session.js";
import type { ConsoleSession } from "../types.js";
import { Busy, ErrorNotice, PageTitle, Success } from "../ui.js";
import { PasswordChange } from "./password-change.js";

export default function Sessions() {
  const session = useSignedIn();
  const queryClient = useQueryClient();
  const sessions = useQuery({ queryKey: ["sessions"], queryFn: () => data<ConsoleSession[]>("/api/v2/sessions") });
  const end = useMutation({
    mutationFn: (id?: number) =>
      data<{ ended: number }>(id === undefined ? "/api/v2/sessions" : `/api/v2/sessions/${id}`, { method: "DELETE" }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ["sessions"] }),
  });
  const others = (sessions.data ?? []).filter((s) => !s.current).length;

  return (
    <>
      <PageTitle>Sessions</PageTitle>
      <p>Where {session.login} is signed in. End a session you do not recognise, then change your password.</p>
      <button type="button" disabled={others === 0 || end.isPending} onClick={() => end.mutate(undefined)}>
        End every other session
      </button>
      {end.data ? (
        <Success>{end.data.ended === 1 ? "1 session ended." : `${end.data.ended} sessions ended.`}</Success>
      ) : null}
      <ErrorNotice error={end.error} title="Not ended" />
      <ErrorNotice error={sessions.error} />
      {sessions.isPending ? <Busy /> : null}
      {sessions.data ? (
        <div className="table-wrap">
          <table>
            <caption>Your sessions, last used first</caption>
            <thead>
              <tr>
                <th scope="col">Device</th>
                <th scope="col">Address</th>
                <th scope="col">Last used</th>
                <th scope="col">Signed in</th>
                <th scope="col">End</th>
              </tr>
            </thead>
            <tbody>
              {sessions.data.map((s) => (
                <tr key={s.id} data-testid={`session-${s.id}`}>
                  <td>{s.device ?? "unknown"}</td>
                  <td>{s.address}</td>
                  <td>{formatTime(s.last_used_at, session.time_zone)}</td>
                  <td>{formatTime(s.signed_in_at, session.time_zone)}</td>
                  <td>
                    {s.current ? (
                      "This session"
                    ) : (
                      <button type="button" onClick={() => end.mutate(s.id)}>
                        End session {s.id}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {session.viewer ? null : <PasswordChange login={session.login} />}
    </>
  );
}
