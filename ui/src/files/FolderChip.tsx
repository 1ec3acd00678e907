// The conversation header's view of the thread's files: a chip saying what its folder is (a
// worktree and its branch, a folder in git with its checkpoints, a folder outside git), the ways
// into "Changes in this fork" and Compare, and a clear bar when its folder is gone.
import { useEffect } from "react";
import type { ForkFilesSetting } from "../bindings/ForkFilesSetting";
import type { ThreadView } from "../bindings/ThreadView";
import { openDialog } from "../ui/open";
import { AlertIcon, BranchIcon, FolderIcon, Spinner } from "../ui/icons";
import type { ForkFiles } from "../ipc";
import { type ContextMenuItem, useApp } from "../state";
import { archiveThread, fillWords, folderWords, loadFiles, removeGoneWorktree } from "./files";
import { lineageOf } from "./lineage";

/** The fork menu's choice of files, when the thread's folder is in git. */
export function forkFileItems(
  inGit: boolean,
  setting: ForkFilesSetting,
  ok: boolean,
  why: string | undefined,
  fork: (files: ForkFiles) => void,
  hasCheckpoints = true,
): ContextMenuItem[] {
  if (!inGit) return [];
  // "A new worktree" by default only where there are checkpoints (else the same folder).
  const effective: ForkFilesSetting = setting === "worktree" && !hasCheckpoints ? "same_folder" : setting;
  const mark = (v: ForkFilesSetting) => (effective === v ? " (default)" : "");
  return [
    {
      label: `New worktree with the files as of this message${mark("worktree")}`,
      disabled: !ok,
      title: why,
      action: () => fork("worktree"),
    },
    {
      label: `Same folder${mark("same_folder")}`,
      disabled: !ok,
      title: why,
      action: () => fork("same_folder"),
    },
  ];
}

/** Reads the thread's files when it is shown and whenever it changes. */
function useFiles(thread: ThreadView) {
  const view = useApp((s) => s.files[thread.id]);
  useEffect(() => {
    void loadFiles(thread.id);
  }, [thread.id, thread.revision, thread.updated_at, thread.state]);
  // Back in the window (the user may have deleted or moved the folder meanwhile): read again.
  useEffect(() => {
    const again = () => void loadFiles(thread.id);
    window.addEventListener("focus", again);
    return () => window.removeEventListener("focus", again);
  }, [thread.id]);
  return view;
}

/** `folded`: the header has no room for the chip; it shows in the header's "+N" menu. */
export function FolderChip({ thread, folded = false }: { thread: ThreadView; folded?: boolean }) {
  const view = useFiles(thread);
  const threads = useApp((s) => s.threads);
  const relatives = lineageOf(threads, thread.id).length > 1;
  if (!view) return null;
  const words = folderWords(view);
  return (
    <>
      <span
        className={`folder-chip folder-chip--${words.kind}${folded ? " conv-head__folded" : ""}`}
        data-folder-kind={words.kind}
        data-header-chip="folder"
        data-branch={view.branch ?? undefined}
        title={words.title}
      >
        {words.kind === "worktree" ? (
          <BranchIcon width={12} height={12} />
        ) : words.kind === "gone" ? (
          <AlertIcon width={12} height={12} />
        ) : (
          <FolderIcon width={12} height={12} />
        )}
        {words.label}
      </span>
      {view.folder_kind === "worktree" && view.folder_exists && (
        <button
          type="button"
          className="button button--ghost button--small"
          data-action="show-changes"
          title="The files this fork changed since its fork point"
          onClick={() => openDialog({ kind: "changes", threadId: thread.id })}
        >
          Changes
        </button>
      )}
      {view.in_git && view.folder_exists && (
        <button
          type="button"
          className="button button--ghost button--small"
          data-action="setup-command"
          title="A command new worktrees of this repository run once (e.g. npm install)"
          onClick={() => openDialog({ kind: "setup", threadId: thread.id })}
        >
          Setup…
        </button>
      )}
      {relatives && (
        <button
          type="button"
          className="button button--ghost button--small"
          data-action="compare"
          title="Compare this thread with another of its lineage: turns side by side and the code difference"
          onClick={() => openDialog({ kind: "compare", threadId: thread.id, other: null })}
        >
          Compare…
        </button>
      )}
    </>
  );
}

/** The repository's setup command in this fork's new worktree: running, or how it ended. */
export function SetupOutput({ threadId }: { threadId: string }) {
  const setup = useApp((s) => s.setup[threadId]);
  if (!setup) return null;
  const state = !setup.ended ? "running" : setup.success ? "done" : "failed";
  const words =
    state === "running"
      ? "Setting up the worktree…"
      : state === "done"
        ? "Worktree setup finished"
        : `Worktree setup failed${setup.message ? `: ${setup.message}` : ""}`;
  return (
    <details className={`worktree-setup worktree-setup--${state}`} data-worktree-setup={state} open={state === "failed" ? true : undefined}>
      <summary>{words}</summary>
      <pre className="worktree-setup__output">{setup.output || "(no output)"}</pre>
    </details>
  );
}

/** A fork's worktree being filled: how far, and that a prompt waits for it. */
export function FilesPreparing({ threadId }: { threadId: string }) {
  const fill = useApp((s) => s.preparing[threadId]);
  if (!fill) return null;
  return (
    <div className="files-preparing" role="status" data-files-preparing={`${fill.done}/${fill.total}`}>
      <Spinner size={11} />
      <span>{fillWords(fill)}</span>
      {fill.total > 0 && <progress max={fill.total} value={fill.done} />}
      <span className="files-preparing__note">A prompt sent now goes out when the files are there.</span>
    </div>
  );
}

/** "Its folder is gone" with what the user can do, instead of errors; the worktree's setup. */
export function FolderBar({ thread }: { thread: ThreadView }) {
  return (
    <>
      <FilesPreparing threadId={thread.id} />
      <SetupOutput threadId={thread.id} />
      <FolderGone thread={thread} />
    </>
  );
}

function FolderGone({ thread }: { thread: ThreadView }) {
  const view = useApp((s) => s.files[thread.id]);
  if (!view || view.folder_exists) return null;
  const worktree = view.folder_kind === "worktree";
  return (
    <div className="folder-gone" role="status" data-folder-gone="true">
      <AlertIcon width={14} height={14} />
      <span>
        Its folder is gone: <code>{thread.cwd}</code>.{" "}
        {worktree
          ? "The worktree was deleted outside Forkhost; the conversation stays readable."
          : "The folder was moved or deleted; the conversation stays readable."}
      </span>
      <span className="conv-head__spacer" />
      {worktree && (
        <button
          type="button"
          className="button button--small"
          data-action="remove-worktree"
          onClick={() => void removeGoneWorktree(thread.id)}
        >
          Remove worktree
        </button>
      )}
      {thread.state !== "archived" && (
        <button
          type="button"
          className="button button--small"
          data-action="archive"
          onClick={() => void archiveThread(thread.id)}
        >
          Archive
        </button>
      )}
    </div>
  );
}
