// Settings ▸ "Command-line tool": puts the `forkhost` CLI that ships beside the app on PATH
// (src-tauri/src/cli_tool.rs does the work; docs/release.md says what each platform gets).
import { useCallback, useEffect, useState } from "react";
import type { CliToolStatus } from "./bindings/CliToolStatus";
import * as ipc from "./ipc";

/** The one word tests and styles key on (`data-cli-tool-status`). */
export type CliToolState =
  | "loading"
  | "error"
  | "missing"
  | "packaged"
  | "installed"
  | "outdated"
  | "conflict"
  | "not_installed";

export function cliToolState(status: CliToolStatus | null, failed: boolean): CliToolState {
  if (!status) return failed ? "error" : "loading";
  if (status.kind === "none") return "missing";
  if (status.kind === "packaged") return "packaged";
  if (status.installed) return status.outdated ? "outdated" : "installed";
  if (status.conflict) return "conflict";
  return "not_installed";
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function errorCode(err: unknown): string | null {
  return err && typeof err === "object" && "code" in err ? String((err as { code: unknown }).code) : null;
}

function Path({ children }: { children: string | null }) {
  return <code className="cli-tool__path">{children ?? "?"}</code>;
}

/** What Install will do, in words. */
function plan(s: CliToolStatus) {
  switch (s.kind) {
    case "symlink":
      return (
        <>
          Install links <Path>{s.target}</Path> to the copy inside the app, so it follows the app through updates.
        </>
      );
    case "copy":
      return (
        <>
          Install copies it to <Path>{s.target}</Path> (an AppImage moves every time it runs, so a link would break).
        </>
      );
    case "user_path":
      return (
        <>
          Install adds <Path>{s.target}</Path> to your user Path.
        </>
      );
    default:
      return null;
  }
}

function Summary({ status, state }: { status: CliToolStatus; state: CliToolState }) {
  switch (state) {
    case "missing":
      return (
        <p className="cli-tool__summary">
          This copy of Forkhost has no command-line tool beside it (looked for <Path>{status.looked_at}</Path>).
        </p>
      );
    case "packaged":
      return (
        <p className="cli-tool__summary">
          Installed with the package at <Path>{status.installed_path ?? status.target}</Path>, already on your PATH.
        </p>
      );
    case "installed":
      return (
        <p className="cli-tool__summary">
          {status.kind === "user_path" ? (
            <>
              Installed: <Path>{status.target}</Path> is on your user Path.
            </>
          ) : (
            <>
              Installed at <Path>{status.installed_path}</Path>.
            </>
          )}
        </p>
      );
    case "outdated":
      return (
        <p className="cli-tool__summary">
          An older Forkhost command-line tool is at <Path>{status.installed_path}</Path>. Update it to this app's
          {status.bundled_version ? ` (${status.bundled_version})` : ""}.
        </p>
      );
    case "conflict":
      return (
        <p className="cli-tool__summary">
          <Path>{status.conflict?.path ?? null}</Path> is already taken by {status.conflict?.detail}.{" "}
          {status.conflict?.replaceable
            ? "Forkhost replaces it only if you confirm."
            : "Move it away, then install again."}
        </p>
      );
    default:
      return (
        <p className="cli-tool__summary">
          Not installed: terminals don't know the <code>forkhost</code> command yet. {plan(status)}
        </p>
      );
  }
}

/** Settings section: status, Install / Uninstall, the confirm step, warnings. */
export function CliToolSection() {
  // The confirm step opens at the bottom of a scrolling dialog: its buttons come into view.
  const revealConfirm = useCallback((el: HTMLDivElement | null) => el?.scrollIntoView?.({ block: "nearest" }), []);
  const [status, setStatus] = useState<CliToolStatus | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<"install" | "uninstall" | null>(null);
  const [confirming, setConfirming] = useState(false);

  const load = useCallback(async () => {
    try {
      setStatus(await ipc.cliToolStatus());
      setError(null);
    } catch (err) {
      setError(errorMessage(err));
    }
  }, []);

  useEffect(() => {
    // `load` sets state only after its read returns; the rule cannot see past the call.
    // eslint-disable-next-line react-hooks/set-state-in-effect -- asynchronous, see above
    void load();
  }, [load]);

  const install = async (replace: boolean) => {
    // A known conflict is confirmed first; nothing is called until the user says so.
    if (!replace && status?.conflict) {
      setConfirming(true);
      return;
    }
    setBusy("install");
    setError(null);
    try {
      setStatus(await ipc.cliToolInstall(replace));
      setConfirming(false);
    } catch (err) {
      if (errorCode(err) === "conflict" && !replace) {
        // Someone put a file there since the status was read: show it and ask.
        await load();
        setConfirming(true);
      } else {
        setError(errorMessage(err));
      }
    } finally {
      setBusy(null);
    }
  };

  const uninstall = async () => {
    setBusy("uninstall");
    setError(null);
    try {
      setStatus(await ipc.cliToolUninstall());
      setConfirming(false);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(null);
    }
  };

  const state = cliToolState(status, error !== null);
  const canInstall = !!status?.can_install && !confirming;
  const installedVersion = status?.installed ? status.installed_version : null;

  return (
    <section className="settings-section cli-tool" id="cli-tool" data-section="cli-tool" data-cli-tool-status={state}>
      <div className="settings-section__head">
        <h3>Command-line tool</h3>
        {status?.bundled_version && <span className="cli-tool__bundled">{status.bundled_version}</span>}
      </div>
      {state === "loading" && <p className="cli-tool__summary">Checking…</p>}
      {status && <Summary status={status} state={state} />}
      {installedVersion && (
        <p className="settings-hint" data-cli-tool-version={installedVersion}>
          <code>forkhost --version</code> says: <strong>{installedVersion}</strong>
        </p>
      )}
      {status?.needs_admin && (
        <p className="settings-hint">macOS will ask for an administrator password.</p>
      )}
      {confirming && status?.conflict?.replaceable && (
        <div
          className="cli-tool__confirm"
          role="alertdialog"
          aria-label="Replace forkhost"
          data-cli-tool-confirm
          ref={revealConfirm}
        >
          <p>
            Replace <Path>{status.conflict.path}</Path> ({status.conflict.detail}) with Forkhost's command-line
            tool? The file there now will be gone.
          </p>
          <div className="cli-tool__buttons">
            <button
              type="button"
              className="button button--danger button--small"
              data-action="cli-tool-replace"
              disabled={busy !== null}
              onClick={() => void install(true)}
            >
              Replace it
            </button>
            <button
              type="button"
              className="button button--small"
              data-action="cli-tool-cancel"
              disabled={busy !== null}
              onClick={() => setConfirming(false)}
            >
              Keep it
            </button>
          </div>
        </div>
      )}
      {status && (status.can_install || status.can_uninstall) && (
        <div className="cli-tool__buttons">
          {status.can_install && (
            <button
              type="button"
              className="button button--primary button--small"
              data-action="cli-tool-install"
              disabled={busy !== null || !canInstall}
              onClick={() => void install(false)}
            >
              {busy === "install" ? "Installing…" : status.outdated ? "Update" : "Install"}
            </button>
          )}
          {status.can_uninstall && (
            <button
              type="button"
              className="button button--small"
              data-action="cli-tool-uninstall"
              disabled={busy !== null}
              onClick={() => void uninstall()}
            >
              {busy === "uninstall" ? "Removing…" : "Uninstall"}
            </button>
          )}
        </div>
      )}
      {status?.warnings.map((w) => (
        <p key={w.code} className="settings-hint settings-hint--warn" data-cli-tool-warning={w.code}>
          {w.message}
        </p>
      ))}
      {error && (
        <p className="cli-tool__error" role="alert" data-cli-tool-error>
          {error}
        </p>
      )}
    </section>
  );
}

/**
 * Scrolls the open Settings dialog to this section and flashes it (the "Install Command-Line
 * Tool…" menu item). The dialog mounts on the next render, so this waits a few frames for it.
 */
export function revealCliToolSection(tries = 30) {
  const el = document.querySelector<HTMLElement>('[data-section="cli-tool"]');
  if (!el) {
    if (tries > 0) requestAnimationFrame(() => revealCliToolSection(tries - 1));
    return;
  }
  el.scrollIntoView?.({ block: "center" });
  el.dataset.highlight = "true";
  window.setTimeout(() => delete el.dataset.highlight, 1600);
}
