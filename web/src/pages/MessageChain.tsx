// The fallback send a message is a step of (POST /api/v2/send): each step's channel, recipient,
// condition and how it stands, with a link to the other steps' messages. From
// GET /api/v2/send/{chain_id}; the operator's view (another account's chain) shows the id only.
import { useQuery } from "@tanstack/react-query";
import { data } from "../api.js";
import { formatTime, walletName } from "../format.js";
import { Link } from "../router.js";
import type { MessageDetail, SendChain } from "../types.js";
import { StatusBadge } from "../ui.js";

const CONDITIONS: Record<string, string> = {
  failed: "if the step before failed",
  not_delivered: "if the step before was not delivered",
  not_read: "if the step before was not read",
};

export function ChainSection({
  link,
  messageId,
  tz,
  own,
}: {
  link: NonNullable<MessageDetail["chain"]>;
  messageId: string;
  tz: string;
  /** The signed-in account's own message: its chain can be read. */
  own: boolean;
}) {
  const chain = useQuery({
    queryKey: ["chain", link.chain_id],
    queryFn: () => data<SendChain>(`/api/v2/send/${encodeURIComponent(link.chain_id)}`),
    enabled: own,
    refetchInterval: (query) => (query.state.data?.status === "completed" ? false : 2_000),
  });
  return (
    <section aria-labelledby="chain-title" data-testid="chain">
      <h2 id="chain-title">Fallback send</h2>
      <p>
        Step {link.step} of {link.steps} of <code>{link.chain_id}</code>
        {chain.data ? (
          <> — {chain.data.status === "completed" ? `completed, ${chain.data.outcome}` : "running"}</>
        ) : null}
      </p>
      {chain.data ? (
        <ol className="chain-steps">
          {chain.data.steps.map((step, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a chain's steps are fixed and ordered
            <li key={index} data-testid="chain-step">
              <strong>{walletName(step.channel)}</strong> to {step.to}
              {step.after ? ` ${CONDITIONS[step.after.on] ?? step.after.on}` : ""}
              {step.after?.within_seconds ? ` within ${step.after.within_seconds} s` : ""}:{" "}
              <StatusBadge status={step.status} />
              {step.decides_at ? ` until ${formatTime(step.decides_at, tz)}` : ""}
              {step.error ? (
                <>
                  {" "}
                  {step.error.message} <code>{step.error.code}</code>
                </>
              ) : null}
              {step.message_id && step.message_id !== messageId ? (
                <>
                  {" "}
                  <Link to={`/messages/${encodeURIComponent(step.message_id)}`}>its message</Link>
                </>
              ) : null}
            </li>
          ))}
        </ol>
      ) : null}
    </section>
  );
}
