// The confirmation a money action waits for (console audit: transfers, gifts, top-ups and
// corrections ran at once while a take-back asked first): the form's submit only asks, and the
// "Confirm: …" button, naming what moves, sends it.
import type { ReactNode } from "react";

export function ConfirmStep({
  testId,
  warning,
  confirmLabel,
  keepLabel = "Keep it as it is",
  onConfirm,
  onKeep,
}: {
  testId: string;
  warning: ReactNode;
  confirmLabel: string;
  keepLabel?: string;
  onConfirm: () => void;
  onKeep: () => void;
}) {
  return (
    <div className="notice" data-testid={testId}>
      <p>{warning}</p>
      <div className="actions">
        <button type="button" className="primary" onClick={onConfirm}>
          {confirmLabel}
        </button>
        <button type="button" onClick={onKeep}>
          {keepLabel}
        </button>
      </div>
    </div>
  );
}
