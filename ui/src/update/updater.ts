// The app's own updates: the check at start (main window, unless Settings turn it off), the
// check from the menu, and installing with progress. The Rust side (src-tauri/src/update.rs)
// keeps the update it found; this side only shows it and says "install that version".
import { closeDialog, openDialog, saveSettings } from "../ui/open";
import { describeError } from "../errors";
import * as ipc from "../ipc";
import type { UpdateProgress } from "../ipc";
import { store, type UpdateState } from "../state";

/** The start-up check waits this long, so it never competes with the first paint. */
export const STARTUP_CHECK_DELAY_MS = 3_000;

function setUpdate(update: UpdateState) {
  store.set({ update });
}

/** True while an install runs (nothing else may start then). */
function installing(
  state: UpdateState,
): state is Extract<UpdateState, { status: "downloading" | "installing" | "restarting" }> {
  return state.status === "downloading" || state.status === "installing" || state.status === "restarting";
}

/**
 * Asks for a newer release. A manual check opens the update dialog at once and reports every
 * outcome there; the start-up check shows the dialog only when there is something to install
 * (and no other dialog is open: then Settings and the sidebar offer it).
 */
export async function checkForUpdates(manual: boolean): Promise<void> {
  const current = store.get().update;
  if (installing(current) || current.status === "checking") {
    if (manual) openDialog({ kind: "update" });
    return;
  }
  setUpdate({ status: "checking" });
  if (manual) openDialog({ kind: "update" });
  try {
    const info = await ipc.updateCheck(manual);
    if (!info) {
      setUpdate(manual ? { status: "current" } : { status: "idle" });
      return;
    }
    setUpdate({ status: "available", info });
    if (manual || store.get().dialog === null) openDialog({ kind: "update" });
  } catch (err) {
    const words = describeError(err);
    setUpdate({ status: "failed", info: null, title: "Could not check for updates", message: words.message });
  }
}

/** Downloads and installs the update shown; the app restarts into it when it is done. */
export async function installUpdate(): Promise<void> {
  const current = store.get().update;
  const info =
    current.status === "available" ? current.info : current.status === "failed" ? current.info : null;
  if (!info) return;
  setUpdate({ status: "downloading", info, downloaded: 0, total: null });
  try {
    await ipc.updateInstall(info.version);
    // On success the app is restarting; the progress event says so too.
    setUpdate({ status: "restarting", info });
  } catch (err) {
    const words = describeError(err);
    setUpdate({ status: "failed", info, title: "The update was not installed", message: words.message });
  }
}

/** An `update-progress` event for this window's install. */
export function onUpdateProgress(progress: UpdateProgress) {
  const current = store.get().update;
  if (!installing(current)) return;
  const info = current.info;
  switch (progress.stage) {
    case "downloading":
      setUpdate({ status: "downloading", info, downloaded: progress.downloaded, total: progress.total });
      break;
    case "installing":
      setUpdate({ status: "installing", info });
      break;
    case "restarting":
      setUpdate({ status: "restarting", info });
      break;
  }
}

/** "Skip this version": the start-up check stops offering it. */
export async function skipUpdate(): Promise<void> {
  const current = store.get().update;
  if (current.status !== "available") return;
  const saved = await saveSettings({ ...store.get().settings, skipped_update: current.info.version });
  if (!saved) return;
  setUpdate({ status: "idle" });
  closeDialog();
}

/** "Later": the offer stays in the sidebar until the next start. */
export function postponeUpdate() {
  closeDialog();
}

/** The start-up check, for the main window only; returns a cancel function. */
export function scheduleStartupCheck(): () => void {
  const state = store.get();
  if (!state.main || state.spare || !state.settings.check_for_updates || !ipc.inApp()) return () => {};
  const timer = setTimeout(() => void checkForUpdates(false), STARTUP_CHECK_DELAY_MS);
  return () => clearTimeout(timer);
}

/** "12.3 of 40.1 MB" for the progress line. */
export function formatProgress(downloaded: number, total: number | null): string {
  const mb = (n: number) => (n / 1_000_000).toFixed(1);
  return total ? `${mb(downloaded)} of ${mb(total)} MB` : `${mb(downloaded)} MB`;
}
