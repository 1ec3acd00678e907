// A thread's files as the window knows them (worktree or folder, in git, still there), and what
// the user does with them: trust a folder before a thread starts there, archive a thread with its
// worktree (never removed without naming what would be lost), bring a fork's changes back.
import { describeError } from "../errors";
import * as ipc from "../ipc";
import type { FillView } from "../bindings/FillView";
import type { FilesView, HostEvent, TrustView, WorktreeLoss } from "../ipc";
import { store, threadById } from "../state";
import { closeTab } from "../tabs/tabs";
import { refreshThreads } from "../threads/cache";
import { markFill } from "../perf";
import { notify, notifyError } from "../ui/toasts";

const loading = new Map<string, { read: Promise<FilesView | null>; prepared: number }>();
/**
 * Per thread, how many `files_prepared` events this window has had. A read that began before
 * the last one may still say the files are being prepared (the Host answered while its fill
 * was ending): it must neither bring the bar back nor stand in for the read made after it.
 */
const prepared = new Map<string, number>();

/** Reads the thread's files into the store (one read at a time per thread). */
export function loadFiles(threadId: string): Promise<FilesView | null> {
  const since = prepared.get(threadId) ?? 0;
  const running = loading.get(threadId);
  if (running && running.prepared === since) return running.read;
  const read: Promise<FilesView | null> = Promise.resolve()
    .then(() => ipc.files(threadId))
    .then(
      (view) => {
        if (!view) return null;
        // Overtaken by the fill's end: the read made after it (`applyFillEvent`) holds the truth.
        if ((prepared.get(threadId) ?? 0) !== since) return view;
        store.set((s) => ({ files: { ...s.files, [threadId]: view }, preparing: withFill(s.preparing, threadId, view.preparing) }));
        return view;
      },
      () => null,
    )
    .finally(() => {
      if (loading.get(threadId)?.read === read) loading.delete(threadId);
    });
  loading.set(threadId, { read, prepared: since });
  return read;
}

/** The words of a folder's kind, as the conversation header shows them. */
export function folderWords(view: FilesView): { kind: string; label: string; title: string } {
  if (!view.folder_exists) {
    return { kind: "gone", label: "its folder is gone", title: "The thread's folder no longer exists" };
  }
  if (view.folder_kind === "worktree") {
    return {
      kind: "worktree",
      label: view.branch ? `worktree · ${view.branch}` : "worktree",
      title: "A git worktree of its own, made for this fork",
    };
  }
  if (!view.in_git) {
    return {
      kind: "no-git",
      label: "not a git repository (no checkpoints)",
      title: "Forks of this thread share its folder: its files are not recorded per turn",
    };
  }
  if (view.checkpoints_note) {
    // In git, but the repository is the home folder or far above the thread's folder: its
    // files are not recorded, and the note says how to opt in.
    return { kind: "no-checkpoints", label: "git · no checkpoints", title: view.checkpoints_note };
  }
  const n = view.checkpoints.length;
  return {
    kind: "folder",
    label: n === 1 ? "git · 1 checkpoint" : `git · ${n} checkpoints`,
    title: "The files are recorded at the start and end of every turn",
  };
}

// ---- a fork's worktree being filled -------------------------------------------------------------

function withFill(all: Record<string, FillView>, threadId: string, fill: FillView | null) {
  if (fill) return { ...all, [threadId]: fill };
  if (!(threadId in all)) return all;
  const { [threadId]: _, ...rest } = all;
  return rest;
}

/**
 * Keeps a `files_progress` / `files_prepared` event (a fork's worktree filled after the fork
 * opened); false for any other event. A failure is said in a toast, and the files are read
 * again (the half-made worktree is gone).
 */
export function applyFillEvent(event: HostEvent): boolean {
  if (event.type === "files_progress") {
    const fill = { done: event.done, total: event.total };
    markFill(event.thread_id, fill);
    store.set((s) => ({ preparing: withFill(s.preparing, event.thread_id, fill) }));
    return true;
  }
  if (event.type !== "files_prepared") return false;
  prepared.set(event.thread_id, (prepared.get(event.thread_id) ?? 0) + 1);
  markFill(event.thread_id, null);
  store.set((s) => ({ preparing: withFill(s.preparing, event.thread_id, null) }));
  if (event.error) notify({ kind: "error", title: "The fork's files", message: event.error }, 15_000);
  void loadFiles(event.thread_id);
  return true;
}

/** "Preparing files 12,340 / 50,000" (the count once git has one). */
export function fillWords(fill: FillView): string {
  if (fill.total === 0) return "Preparing files…";
  const n = (x: number) => x.toLocaleString("en-US");
  return `Preparing files ${n(fill.done)} / ${n(fill.total)}`;
}

// ---- the worktree's setup command ------------------------------------------------------------------

const SETUP_KEEP = 64 * 1024;

/** Keeps a `worktree_setup` / `worktree_setup_ended` event; false for any other event. */
export function applySetupEvent(event: HostEvent): boolean {
  if (event.type !== "worktree_setup" && event.type !== "worktree_setup_ended") return false;
  const id = event.thread_id;
  store.set((s) => {
    const was = s.setup[id] ?? { output: "", ended: false, success: null, message: null };
    const next =
      event.type === "worktree_setup"
        ? { ...was, output: (was.output + event.output).slice(-SETUP_KEEP) }
        : { ...was, ended: true, success: event.success, message: event.message };
    return { setup: { ...s.setup, [id]: next } };
  });
  return true;
}

// ---- folder trust -------------------------------------------------------------------------------

/** Asks the user (the trust dialog) whether to trust the folder's project agent config. */
export function askTrust(view: TrustView): Promise<boolean | null> {
  return new Promise((resolve) => {
    store.set({
      trustAsk: {
        view,
        answer: (trusted) => {
          store.set({ trustAsk: null });
          resolve(trusted);
        },
      },
    });
  });
}

/** The folder an import was refused for (its project agent config is undecided), as the
 * refusal carries it; null for any other error. */
export function trustFromRefusal(err: unknown): TrustView | null {
  if (!(err instanceof ipc.IpcError) || err.code !== "invalid_input") return null;
  return err.trust;
}

/** The trust question's sentence (text only). */
export function trustQuestion(view: TrustView): string {
  const changed =
    view.trusted === true && view.changed.length > 0
      ? ` New or changed since you trusted it: ${view.changed.join(", ")}.`
      : "";
  return (
    `${view.root} has project agent config (${view.config.join(", ")}).${changed} Its hooks, MCP ` +
    `servers and extensions run commands when an agent starts there. Trust this folder?`
  );
}

/** Whether `view` needs the user's decision: config nobody decided on, or new since a trust. */
export function trustUndecided(view: TrustView): boolean {
  return view.config.length > 0 && (view.trusted === null || view.changed.length > 0);
}

/**
 * Before a thread starts in `folder` (of the remote `host`, judged there, when given): when it
 * has project agent config the user has not decided on, asks once and records the answer.
 * False: the user cancelled (nothing is created).
 */
export async function ensureTrust(
  folder: string,
  ask: (view: TrustView) => Promise<boolean | null> = askTrust,
  host: string | null = null,
): Promise<boolean> {
  let view: TrustView;
  try {
    view = await ipc.folderTrust(folder, host);
  } catch {
    // A folder that can't be read: the create itself says why.
    return true;
  }
  if (!trustUndecided(view)) return true;
  const trusted = await ask(view);
  if (trusted === null) return false;
  try {
    await ipc.setFolderTrust(folder, trusted, view.digest, host);
    return true;
  } catch (err) {
    notifyError(err, "Folder trust");
    return false;
  }
}

// ---- archive and the worktree ---------------------------------------------------------------------

/** Whether a loss holds anything (files, ignored files, commits, other threads' folder). */
export function losesSomething(loss: WorktreeLoss): boolean {
  return loss.files.length > 0 || loss.commits > 0 || loss.ignored.length > 0 || loss.other_threads.length > 0;
}

/** What removing would lose, in words. */
export function lossWords(loss: WorktreeLoss): string {
  const parts: string[] = [];
  if (loss.files.length > 0) {
    parts.push(loss.files.length === 1 ? "1 file with uncommitted changes" : `${loss.files.length} files with uncommitted changes`);
  }
  if (loss.ignored.length > 0) {
    parts.push(loss.ignored.length === 1 ? "1 ignored file made there" : `${loss.ignored.length} ignored files made there`);
  }
  if (loss.commits > 0) {
    parts.push(loss.commits === 1 ? "1 commit no other branch has" : `${loss.commits} commits no other branch has`);
  }
  if (loss.other_threads.length > 0) {
    parts.push(
      loss.other_threads.length === 1
        ? "the folder of 1 other thread"
        : `the folder of ${loss.other_threads.length} other threads`,
    );
  }
  if (parts.length <= 1) return parts[0] ?? "nothing";
  return `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}`;
}

async function archiveOnly(threadId: string) {
  await ipc.archive(threadId, true);
  const tabs = store.get().tabs.filter((t) => t.thread_id === threadId);
  for (const tab of tabs) closeTab(tab.id);
  void refreshThreads();
}

/**
 * Archives a thread. One with a worktree that is still there opens the archive dialog first
 * (remove the worktree too? what it would lose); nothing is removed without that.
 */
export async function archiveThread(threadId: string) {
  try {
    const view = store.get().files[threadId] ?? (await loadFiles(threadId));
    if (view?.folder_kind === "worktree" && view.folder_exists) {
      const loss = await ipc.worktreeLoss(threadId);
      if (loss.exists) {
        store.set({ dialog: { kind: "archive", threadId, loss }, menu: null });
        return;
      }
    }
    await archiveOnly(threadId);
  } catch (err) {
    notifyError(err, "Archive");
  }
}

/**
 * The archive dialog's answer: archive, and with `remove` the worktree too, passing back the
 * loss the user saw (only when it holds something). Returns an error's words, or null.
 */
export async function archiveWithWorktree(
  threadId: string,
  remove: boolean,
  seen: WorktreeLoss,
): Promise<string | null> {
  try {
    await archiveOnly(threadId);
  } catch (err) {
    const e = describeError(err);
    return `${e.title}: ${e.message}`;
  }
  if (!remove) return null;
  try {
    await ipc.removeWorktree(threadId, losesSomething(seen) ? seen : null);
    store.set((s) => {
      const files = { ...s.files };
      delete files[threadId];
      return { files };
    });
    notify({ kind: "success", title: "Worktree removed", message: threadById(store.get(), threadId)?.title });
    return null;
  } catch (err) {
    const e = describeError(err);
    return `Archived, but the worktree was kept: ${e.message}`;
  }
}

/** Removes the worktree of a thread whose folder is gone (git's record of it). */
export async function removeGoneWorktree(threadId: string) {
  try {
    await ipc.removeWorktree(threadId, null);
    void loadFiles(threadId);
  } catch (err) {
    notifyError(err, "Remove worktree");
  }
}
