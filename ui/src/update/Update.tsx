import { closeDialog } from "../ui/open";
import { Modal } from "../ui/Modal";
import { Spinner } from "../ui/icons";
import { Markdown } from "../markdown/Markdown";
import { useApp, type UpdateState } from "../state";
import { checkForUpdates, formatProgress, installUpdate, postponeUpdate, skipUpdate } from "./updater";

function percent(update: UpdateState): number | null {
  if (update.status !== "downloading" || !update.total) return null;
  return Math.min(100, Math.round((update.downloaded / update.total) * 100));
}

/** The update dialog: what is new, then download progress, then the restart. */
export function UpdateDialog() {
  const update = useApp((s) => s.update);
  const version = useApp((s) => (s.info.status === "ready" ? s.info.info.version : null));
  const streaming = useApp((s) => Object.values(s.streaming).filter(Boolean).length);

  return (
    <Modal title="Software update" label="update">
      <div className="form">
        <div className="update" data-update-status={update.status}>
          {update.status === "checking" && (
            <p className="update__line">
              <Spinner /> Checking for updates…
            </p>
          )}
          {(update.status === "current" || update.status === "idle") && (
            <p className="update__line">Forkhost {version ?? ""} is the newest version.</p>
          )}
          {update.status === "available" && (
            <>
              <p className="update__headline">
                Forkhost <strong data-update-version>{update.info.version}</strong> is available — you have{" "}
                {update.info.current_version}.
              </p>
              {update.info.date && (
                <p className="settings-hint">Released {new Date(update.info.date).toLocaleDateString()}</p>
              )}
              {update.info.notes && (
                <section className="update__notes" aria-label="Release notes" data-update-notes>
                  <Markdown text={update.info.notes} />
                </section>
              )}
              {streaming > 0 && (
                <p className="settings-hint settings-hint--warn">
                  {streaming === 1 ? "A reply is" : `${streaming} replies are`} still streaming; restarting stops{" "}
                  {streaming === 1 ? "it" : "them"}.
                </p>
              )}
            </>
          )}
          {update.status === "downloading" && (
            <>
              <p className="update__line">Downloading Forkhost {update.info.version}…</p>
              <progress
                className="update__progress"
                max={100}
                value={percent(update) ?? undefined}
                data-update-progress={percent(update) ?? ""}
                aria-label="Download progress"
              />
              <p className="settings-hint">{formatProgress(update.downloaded, update.total)}</p>
            </>
          )}
          {update.status === "installing" && (
            <p className="update__line">
              <Spinner /> Installing Forkhost {update.info.version}… your system may ask for your password.
            </p>
          )}
          {update.status === "restarting" && (
            <p className="update__line">
              <Spinner /> Restarting into Forkhost {update.info.version}…
            </p>
          )}
          {update.status === "failed" && (
            <div className="update__error" role="alert">
              <p className="update__headline">{update.title}</p>
              <p>{update.message}</p>
            </div>
          )}
        </div>
        <footer className="form__actions">
          {update.status === "available" && (
            <>
              <button type="button" className="button button--ghost" data-action="update-skip" onClick={() => void skipUpdate()}>
                Skip this version
              </button>
              <button type="button" className="button" data-action="update-later" onClick={postponeUpdate}>
                Later
              </button>
              <button
                type="button"
                className="button button--primary"
                data-action="update-install"
                onClick={() => void installUpdate()}
              >
                Install and restart
              </button>
            </>
          )}
          {update.status === "failed" && (
            <>
              <button type="button" className="button" onClick={closeDialog}>
                Close
              </button>
              <button
                type="button"
                className="button button--primary"
                data-action="update-retry"
                onClick={() => void (update.info ? installUpdate() : checkForUpdates(true))}
              >
                Try again
              </button>
            </>
          )}
          {(update.status === "current" || update.status === "idle" || update.status === "checking") && (
            <button type="button" className="button" onClick={closeDialog}>
              Close
            </button>
          )}
          {(update.status === "downloading" || update.status === "installing") && (
            <button type="button" className="button" onClick={closeDialog} title="The update goes on in the background">
              Hide
            </button>
          )}
        </footer>
      </div>
    </Modal>
  );
}

/** The sidebar's reminder of an update on offer or in progress; opens the dialog. */
export function UpdateBadge(props: { onOpen: () => void }) {
  const update = useApp((s) => s.update);
  let label: string | null = null;
  if (update.status === "available") label = `Update to ${update.info.version}`;
  else if (update.status === "downloading") label = `Updating… ${percent(update) ?? 0}%`;
  else if (update.status === "installing" || update.status === "restarting") label = "Installing update…";
  if (!label) return null;
  return (
    <button type="button" className="update-badge" data-action="show-update" onClick={props.onOpen}>
      {label}
    </button>
  );
}

/** The Settings section: the start-up check switch and "Check now". */
export function UpdateSettings(props: { checkAtStart: boolean; onCheckAtStart: (on: boolean) => void }) {
  const version = useApp((s) => (s.info.status === "ready" ? s.info.info.version : null));
  return (
    <section className="settings-section">
      <div className="settings-section__head">
        <h3>Updates</h3>
        <button
          type="button"
          className="button button--ghost button--small"
          data-action="check-updates"
          onClick={() => void checkForUpdates(true)}
        >
          Check now
        </button>
      </div>
      <label className="checkbox">
        <input
          type="checkbox"
          data-setting="check-for-updates"
          checked={props.checkAtStart}
          onChange={(e) => props.onCheckAtStart(e.target.checked)}
        />
        Check for updates when Forkhost starts
      </label>
      {version && <p className="settings-hint">This is Forkhost {version}.</p>}
    </section>
  );
}
