// The header's "Undo rewind": shown while the thread has a rewind not undone yet (read when the
// conversation opens, and after each rewind in this window).
import { useEffect, useState } from "react";
import { Spinner } from "../ui/icons";
import { loadRewinds, undoable, undoRewind, useRewinds } from "./rewind";

export function UndoRewind({ threadId }: { threadId: string }) {
  const last = useRewinds((s) => undoable(threadId, s));
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    void loadRewinds(threadId);
  }, [threadId]);
  if (!last) return null;
  return (
    <button
      type="button"
      className="button button--ghost button--small"
      data-action="undo-rewind"
      data-rewind-id={last.id}
      disabled={busy}
      title={`Back to the line before the rewind to turn ${last.turn}${last.kind === "conversation" ? "" : ", with its files"}`}
      onClick={() => {
        setBusy(true);
        void undoRewind(threadId).finally(() => setBusy(false));
      }}
    >
      {busy && <Spinner size={12} />}
      Undo rewind
    </button>
  );
}
