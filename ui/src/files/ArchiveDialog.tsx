// Archiving a thread that has a worktree: keep it, or remove it too. With something to lose the
// dialog names exactly what (the files, the ignored files made there such as a local database,
// the commits, the other threads working in that folder) and removal passes that loss back.
import { useState } from "react";
import { Modal } from "../ui/Modal";
import { ModalFooter } from "../ui/ModalFooter";
import { closeDialog } from "../ui/open";
import { Spinner } from "../ui/icons";
import type { WorktreeLoss } from "../ipc";
import { threadById, useApp } from "../state";
import { archiveWithWorktree, losesSomething, lossWords } from "./files";

export function ArchiveDialog({ threadId, loss }: { threadId: string; loss: WorktreeLoss }) {
  const thread = useApp((s) => threadById(s, threadId));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const risky = losesSomething(loss);

  const go = async (remove: boolean) => {
    setBusy(true);
    const err = await archiveWithWorktree(threadId, remove, loss);
    setBusy(false);
    if (err) setError(err);
    else closeDialog();
  };

  return (
    <Modal title={`Archive ${thread?.title ?? "thread"}`} label="archive">
      <div className="form" data-archive-of={threadId} data-loses={risky ? "true" : "false"}>
        <p>
          The thread is archived either way. It has a worktree of its own at <code>{thread?.cwd ?? ""}</code>:
          keep it, or remove it too?
        </p>
        {risky ? (
          <div className="loss" role="alert" data-loss="true">
            <strong>Removing it loses {lossWords(loss)}:</strong>
            {loss.files.length > 0 && (
              <ul>
                {loss.files.map((f) => (
                  <li key={f} data-loss-file={f}>
                    {f}
                  </li>
                ))}
              </ul>
            )}
            {loss.ignored.length > 0 && (
              <>
                <p>Ignored by git, made in the worktree (not in any checkpoint):</p>
                <ul>
                  {loss.ignored.map((f) => (
                    <li key={f} data-loss-ignored={f}>
                      {f}
                    </li>
                  ))}
                </ul>
              </>
            )}
            {loss.other_threads.length > 0 && (
              <>
                <p>Other threads work in this folder and would lose it:</p>
                <ul>
                  {loss.other_threads.map((t) => (
                    <li key={t.id} data-loss-thread={t.id}>
                      {t.title}
                    </li>
                  ))}
                </ul>
              </>
            )}
            {loss.commits > 0 && (
              <p data-loss-commits={loss.commits}>
                {loss.commits === 1 ? "1 commit" : `${loss.commits} commits`} on its branch that no other branch or
                remote has.
              </p>
            )}
          </div>
        ) : (
          <p className="muted" data-loss="false">
            Nothing would be lost: it has no uncommitted changes, no ignored files made there, no commits of its
            own, and no other thread works in it.
          </p>
        )}
        {error && (
          <p className="form__error" role="alert">
            {error}
          </p>
        )}
        <ModalFooter busy={busy}>
          <button type="button" className="button" data-action="archive-keep-worktree" disabled={busy} onClick={() => void go(false)}>
            Keep the worktree
          </button>
          <button
            type="button"
            className={`button ${risky ? "button--danger" : "button--primary"}`}
            data-action="archive-remove-worktree"
            disabled={busy}
            onClick={() => void go(true)}
          >
            {busy && <Spinner size={12} />}
            {risky ? "Remove it, losing these" : "Remove the worktree"}
          </button>
        </ModalFooter>
      </div>
    </Modal>
  );
}
