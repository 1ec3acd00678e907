// Which dialog shows (one at a time), and what the dialogs read and save: the harness reports
// (doctor) and the settings.
import * as ipc from "../ipc";
import { type AppState, type Dialog, store } from "../state";
import { notifyError } from "./toasts";

export function openDialog(dialog: Dialog) {
  store.set({ dialog, menu: null });
  if (dialog?.kind === "first-run" && dialog.host) return;
  if (dialog?.kind === "settings" || dialog?.kind === "new-thread" || dialog?.kind === "first-run") void loadDoctor();
}

export function closeDialog() {
  store.set({ dialog: null });
}

export async function loadDoctor(force = false) {
  if (store.get().doctor && !force) return;
  try {
    store.set({ doctor: await ipc.doctor() });
  } catch (err) {
    notifyError(err, "Harnesses");
  }
}

export async function saveSettings(settings: AppState["settings"]) {
  try {
    await ipc.saveSettings(settings);
    store.set({ settings });
    return true;
  } catch (err) {
    notifyError(err, "Settings");
    return false;
  }
}
