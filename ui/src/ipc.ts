// The one door between the UI and the Rust side: every Tauri command and event goes through this
// module, so the rest of the UI stays plain React and can be tested with this module mocked.
import { invoke, isTauri } from "@tauri-apps/api/core";

/** What `app_info` returns (src-tauri/src/lib.rs `AppInfo`). */
export interface AppInfo {
  /** The app's version, from its Cargo package. */
  version: string;
  /** The data folder that holds the store and the logs. */
  data_dir: string;
}

/** True inside the desktop app; false in a plain browser (e.g. `vite` alone). */
export function inApp(): boolean {
  return isTauri();
}

/** Version and data folder of the running app. */
export function appInfo(): Promise<AppInfo> {
  if (!inApp()) {
    return Promise.reject(new Error("not running inside the Forkhost app"));
  }
  return invoke<AppInfo>("app_info");
}
