import { useCallback, useEffect, useState } from "react";
import { appInfo, type AppInfo } from "./ipc";
import { Sidebar } from "./Sidebar";
import { Workspace } from "./Workspace";

export type AppInfoState =
  | { status: "loading" }
  | { status: "ready"; info: AppInfo }
  | { status: "error"; message: string };

/**
 * The app shell. Its root element carries `data-app-ready="true"` once the shell has rendered and
 * the first `app_info` call has settled, so automation can wait on one attribute.
 */
export function App() {
  const [info, setInfo] = useState<AppInfoState>({ status: "loading" });

  useEffect(() => {
    let live = true;
    appInfo().then(
      (value) => live && setInfo({ status: "ready", info: value }),
      (err: unknown) => live && setInfo({ status: "error", message: String(err) }),
    );
    return () => {
      live = false;
    };
  }, []);

  const onNewThread = useCallback(() => {
    // Creating threads arrives with the Host's thread API; the button is the stable hook for it.
  }, []);

  const ready = info.status !== "loading";
  return (
    <div className="app" data-app-ready={ready ? "true" : "false"}>
      <Sidebar info={info} onNewThread={onNewThread} />
      <Workspace />
    </div>
  );
}
