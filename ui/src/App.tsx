import { useEffect } from "react";
import { boot } from "./boot";
import { NewThreadDialog } from "./dialogs/NewThreadDialog";
import { RaceDialog } from "./race/RaceDialog";
import { ContinueDialog } from "./remote/ContinueDialog";
import { SettingsDialog } from "./dialogs/SettingsDialog";
import { FirstRunDialog } from "./firstRun/FirstRunDialog";
import { ArchiveDialog } from "./files/ArchiveDialog";
import { SetupDialog } from "./files/SetupDialog";
import { ChangesDialog } from "./files/ChangesDialog";
import { TreeCostDialog } from "./cost/TreeCostDialog";
import { CompareDialog } from "./files/CompareDialog";
import { TrustDialog } from "./files/TrustDialog";
import { RewindDialog } from "./rewind/RewindDialog";
import { onMenu, onUpdateProgress } from "./ipc";
import { ContextMenu, Toasts } from "./ui/Overlays";
import { onKeyDown, runAction } from "./shortcuts";
import { Sidebar } from "./sidebar/Sidebar";
import { useApp } from "./state";
import { applyTheme } from "./theme";
import { UpdateDialog } from "./update/Update";
import { onUpdateProgress as updateProgress, scheduleStartupCheck } from "./update/updater";
import { ForkPreview } from "./fork/ForkPreview";
import { WarmUp } from "./conversation/WarmUp";
import { Workspace } from "./Workspace";

export type { AppInfoState } from "./state";

/**
 * One window of the app. Its root carries `data-app-ready="true"` once the window has loaded its
 * tabs and the thread list (and the app's version settled), so automation can wait on one
 * attribute.
 */
export function App() {
  const ready = useApp((s) => s.ready);
  const sidebarOpen = useApp((s) => s.sidebarOpen);
  const dialog = useApp((s) => s.dialog);
  const trustAsk = useApp((s) => s.trustAsk);
  const theme = useApp((s) => s.settings.theme);
  const label = useApp((s) => s.label);
  const spare = useApp((s) => s.spare);

  useEffect(() => {
    let stop: (() => void) | undefined;
    let cancelCheck: (() => void) | undefined;
    let live = true;
    void boot().then((s) => {
      if (live) {
        stop = s;
        cancelCheck = scheduleStartupCheck();
      } else s();
    });
    let unlistenUpdate: (() => void) | undefined;
    void onUpdateProgress(updateProgress).then((u) => {
      if (live) unlistenUpdate = u;
      else u();
    });
    let unlistenMenu: (() => void) | undefined;
    void onMenu(runAction).then((u) => {
      if (live) unlistenMenu = u;
      else u();
    });
    window.addEventListener("keydown", onKeyDown);
    // The web view's own menu would offer "Reload" and friends; ours replace it.
    const noMenu = (e: MouseEvent) => {
      const target = e.target as HTMLElement | null;
      if (!target?.closest("input, textarea, .md, .msg__text, .tool__pre")) e.preventDefault();
    };
    window.addEventListener("contextmenu", noMenu);
    return () => {
      live = false;
      stop?.();
      cancelCheck?.();
      unlistenUpdate?.();
      unlistenMenu?.();
      window.removeEventListener("keydown", onKeyDown);
      window.removeEventListener("contextmenu", noMenu);
    };
  }, []);

  useEffect(() => applyTheme(theme), [theme]);

  return (
    <div
      className={`app${sidebarOpen ? "" : " app--no-sidebar"}`}
      data-app-ready={ready ? "true" : "false"}
      data-window={label}
      data-spare={spare ? "true" : undefined}
    >
      {sidebarOpen && <Sidebar />}
      <Workspace />
      {dialog?.kind === "new-thread" && <NewThreadDialog />}
      {dialog?.kind === "settings" && <SettingsDialog />}
      {dialog?.kind === "first-run" && <FirstRunDialog />}
      {dialog?.kind === "update" && <UpdateDialog />}
      {dialog?.kind === "changes" && <ChangesDialog threadId={dialog.threadId} />}
      {dialog?.kind === "tree-cost" && <TreeCostDialog key={dialog.threadId} threadId={dialog.threadId} />}
      {dialog?.kind === "compare" && (
        <CompareDialog key={`${dialog.threadId}|${dialog.other ?? ""}`} threadId={dialog.threadId} other={dialog.other} />
      )}
      {dialog?.kind === "archive" && <ArchiveDialog threadId={dialog.threadId} loss={dialog.loss} />}
      {dialog?.kind === "setup" && <SetupDialog threadId={dialog.threadId} />}
      {dialog?.kind === "rewind" && (
        <RewindDialog threadId={dialog.threadId} turn={dialog.turn} prefill={dialog.prefill} />
      )}
      <RaceDialog />
      <ContinueDialog />
      {trustAsk && <TrustDialog ask={trustAsk} />}
      <ContextMenu />
      <Toasts />
      {spare && <WarmUp />}
      <ForkPreview />
    </div>
  );
}
