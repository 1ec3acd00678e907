// "Rewind to here…": the three kinds, and for the chosen one what the rewind will write back or
// delete and what no checkpoint holds (the loss), read before anything is written. Rewind
// passes exactly that loss back; Cancel touches nothing.
import { useEffect, useState } from "react";
import type { RewindKind } from "../bindings/RewindKind";
import type { RewindPlan } from "../bindings/RewindPlan";
import { Modal } from "../ui/Modal";
import { ModalFooter } from "../ui/ModalFooter";
import { closeDialog } from "../ui/open";
import { describeError } from "../errors";
import { Spinner } from "../ui/icons";
import { threadById, useApp } from "../state";
import { setDraft } from "../threads/turns";
import { KINDS, rewindPlan, runRewind } from "./rewind";

/** `prefill`: a rewind to before a message (to `turn`, the reply before it), whose text is put
 * back in the composer once the conversation is rewound, for the user to edit and send. */
export function RewindDialog({ threadId, turn, prefill }: { threadId: string; turn: number; prefill?: string }) {
  const thread = useApp((s) => threadById(s, threadId));
  const [kind, setKind] = useState<RewindKind>("conversation_and_files");
  // What the Host said for a kind; shown only while that kind is chosen.
  const [loaded, setLoaded] = useState<{ kind: RewindKind; plan: RewindPlan | null; error: string | null } | null>(
    null,
  );
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    rewindPlan(threadId, turn, kind).then(
      (plan) => live && setLoaded({ kind, plan, error: null }),
      (err) => live && setLoaded({ kind, plan: null, error: describeError(err).message }),
    );
    return () => {
      live = false;
    };
  }, [threadId, turn, kind]);

  const current = loaded?.kind === kind ? loaded : null;
  const plan = current?.plan ?? null;
  const planError = current?.error ?? null;

  const go = async () => {
    if (!plan) return;
    setBusy(true);
    const err = await runRewind(threadId, turn, kind, plan.loss);
    setBusy(false);
    if (err) {
      setError(err);
      return;
    }
    // Files only leave the conversation as it was: nothing to edit again.
    if (prefill !== undefined && kind !== "files") setDraft(threadId, prefill);
    closeDialog();
  };

  const loses = (plan?.loss.length ?? 0) > 0;
  const later = plan ? Number(plan.turns) - turn : 0;
  return (
    <Modal title={`Rewind ${thread?.title ?? "thread"} to turn ${turn}`} label="rewind">
      <div className="form" data-rewind-of={threadId} data-turn={turn}>
        <fieldset className="rewind-kinds">
          {KINDS.map((k) => (
            <label key={k.kind} className="rewind-kind">
              <input
                type="radio"
                name="rewind-kind"
                value={k.kind}
                data-rewind-kind={k.kind}
                checked={kind === k.kind}
                onChange={() => setKind(k.kind)}
              />
              <span>
                <strong>{k.label}</strong>
                <span className="muted"> — {k.detail}</span>
              </span>
            </label>
          ))}
        </fieldset>
        {planError && (
          <p className="form__error" role="alert" data-rewind-plan-error="true">
            {planError}
          </p>
        )}
        {!plan && !planError && (
          <p className="muted">
            <Spinner size={12} /> Reading what would change…
          </p>
        )}
        {plan && (
          <div data-rewind-plan={plan.kind}>
            {kind !== "files" && (
              <p data-rewind-later={later}>
                {later === 1 ? "The last turn is" : `The ${later} turns after turn ${turn} are`} set aside as a branch
                marked “rewound” in the sidebar; nothing is deleted.
              </p>
            )}
            {kind !== "conversation" &&
              (plan.changes.length === 0 ? (
                <p className="muted">The folder's files are already as they were after turn {turn}.</p>
              ) : (
                <>
                  <p>These files go back to how they were after turn {turn}:</p>
                  <ul className="rewind-files">
                    {plan.changes.map((f) => (
                      <li key={f.path} data-rewind-file={f.path} data-status={f.status}>
                        <code>{f.path}</code> <span className="muted">{f.status === "deleted" ? "removed" : f.status}</span>
                      </li>
                    ))}
                  </ul>
                </>
              ))}
            {loses && (
              <div className="loss" role="alert" data-loss="true">
                <strong>No checkpoint holds the current changes to:</strong>
                <ul>
                  {plan.loss.map((f) => (
                    <li key={f} data-rewind-loss={f}>
                      {f}
                    </li>
                  ))}
                </ul>
                <p>They are overwritten; only Undo rewind brings them back.</p>
              </div>
            )}
          </div>
        )}
        {error && (
          <p className="form__error" role="alert">
            {error}
          </p>
        )}
        <ModalFooter cancelAction="rewind-cancel" busy={busy}>
          <button
            type="button"
            className={`button ${loses ? "button--danger" : "button--primary"}`}
            data-action="rewind-confirm"
            disabled={busy || !plan}
            onClick={() => void go()}
          >
            {busy && <Spinner size={12} />}
            {loses ? "Rewind, overwriting these" : "Rewind"}
          </button>
        </ModalFooter>
      </div>
    </Modal>
  );
}
