// Sub-accounts priced below their parent (decision 0168): a card changed after it was given may
// leave a sub-account's card below its parent's price; the change is made, and the pages that save
// or show prices say so in this notice (the Price cards import, the operator's account page).

/** The sentences of the sub-accounts below their parent, in a notice; nothing when there are none. */
export function BelowParentNotice({
  below,
  testId,
  advice,
}: {
  below: readonly { username: string; message: string }[];
  testId: string;
  advice: string;
}) {
  if (below.length === 0) return null;
  const one = below.length === 1;
  return (
    <div className="notice" role="status" data-testid={testId}>
      <p>
        <strong>
          {one ? "A sub-account is" : `${below.length} sub-accounts are`} priced below {one ? "its" : "their"} parent:
        </strong>
      </p>
      <ul>
        {below.map((sub) => (
          <li key={sub.username}>{sub.message}</li>
        ))}
      </ul>
      <p>{advice}</p>
    </div>
  );
}
