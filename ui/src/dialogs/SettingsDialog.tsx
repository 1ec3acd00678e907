// Settings: where forks open, the theme, the mode new threads start in per harness, each
// harness's path (checked before it is saved), the command-line tool and updates.
import { useState } from "react";
import type { HarnessKind } from "../bindings/HarnessKind";
import type { HarnessPaths } from "../bindings/HarnessPaths";
import type { HarnessReport } from "../bindings/HarnessReport";
import type { Settings } from "../bindings/Settings";
import { CliToolSection } from "../CliTool";
import { CheckIcon, RefreshIcon, Spinner } from "../ui/icons";
import { checkHarnessPath, IpcError } from "../ipc";
import { HARNESS_NAMES } from "../harnesses";
import { defaultModeFor, withDefaultMode } from "../permissions";
import { useApp } from "../state";
import { UpdateSettings } from "../update/Update";
import { Modal } from "../ui/Modal";
import { ModalFooter } from "../ui/ModalFooter";
import { ModePicker } from "./ModePicker";
import { AcpAgentsSection } from "./AcpAgents";
import { TrustedFoldersSection } from "./TrustedFolders";
import { closeDialog, loadDoctor, saveSettings } from "../ui/open";

type HarnessName = HarnessKind;

/** What the Rust side said about a harness path typed in Settings. */
export type PathCheck =
  | { state: "checking" }
  | { state: "ok"; report: HarnessReport }
  | { state: "error"; code: string; message: string };

/** The harness paths the user set or changed (cleared ones go back to auto-detect: no check). */
export function changedHarnessPaths(saved: HarnessPaths, draft: HarnessPaths): { name: HarnessName; path: string }[] {
  return (["claude", "codex", "pi"] as const)
    .map((name) => ({ name, path: (draft[name] ?? "").trim() }))
    .filter(({ name, path }) => path !== "" && path !== (saved[name] ?? "").trim());
}

/** Checks each path in Rust (exists, startable, `--version` names the harness). */
export async function checkHarnessPaths(
  list: { name: HarnessName; path: string }[],
  check: (harness: string, path: string) => Promise<HarnessReport> = checkHarnessPath,
): Promise<Partial<Record<HarnessName, PathCheck>>> {
  const results = await Promise.all(
    list.map(async ({ name, path }): Promise<[HarnessName, PathCheck]> => {
      try {
        return [name, { state: "ok", report: await check(name, path) }];
      } catch (err) {
        const e = err instanceof IpcError ? err : new IpcError("internal", String(err));
        return [name, { state: "error", code: e.code, message: e.message }];
      }
    }),
  );
  return Object.fromEntries(results);
}

const FOUND_BY: Record<string, string> = {
  override: "the path set here",
  path: "PATH",
  login_shell: "your login shell's PATH",
  fallback: "a usual install folder (not on PATH)",
};

function HarnessCard(props: {
  report: HarnessReport | undefined;
  name: HarnessName;
  path: string;
  onPath: (p: string) => void;
  check: PathCheck | undefined;
  onCheck: () => void;
}) {
  const { report, name, check } = props;
  const caps = report?.capabilities;
  return (
    <div
      className="harness-card"
      data-harness={name}
      data-found={report?.path ? "true" : "false"}
      data-reported={report ? "true" : "false"}
    >
      <div className="harness-card__head">
        <span className={`harness-dot harness-dot--${name}`} aria-hidden />
        <strong>{HARNESS_NAMES[name] ?? name}</strong>
        {report === undefined ? (
          <Spinner size={12} />
        ) : report.path ? (
          <>
            <span className="pill pill--ok">
              <CheckIcon width={12} height={12} /> {report.version}
            </span>
            {report.support && report.support !== "verified" && (
              <span
                className="pill"
                data-support={report.support}
                title={
                  report.support === "newer_than_tested"
                    ? "Newer than the newest version Forkhost's tests ran; it should work."
                    : "Older than the oldest version Forkhost supports; update it."
                }
              >
                {report.support === "newer_than_tested" ? "newer than tested" : "older than supported"}
              </span>
            )}
          </>
        ) : (
          <span className="pill pill--bad">not found</span>
        )}
      </div>
      {report?.path && (
        <div className="harness-card__path" title={report.path}>
          {report.path.length > 44 ? `…${report.path.slice(-43)}` : report.path}
        </div>
      )}
      {report?.path && report.found_by && (
        <div className="harness-card__note" data-found-by={report.found_by}>
          Found through {FOUND_BY[report.found_by] ?? report.found_by}
        </div>
      )}
      {/* The next step in words (the first-run view's); the raw error, which names variables, stays in `forkhost doctor`. */}
      {report?.error && <div className="harness-card__error">{report.next_step ?? report.error}</div>}
      {report?.notes.map((note) => (
        <div key={note} className="harness-card__note" data-harness-note>
          {note}
        </div>
      ))}
      {caps && (
        <div className="harness-card__caps">
          Forks: {caps.boundaries.length ? caps.boundaries.join(", ") : "none"} · per {caps.granularity}
          {caps.eager_fork ? " · native session at once" : " · native session with the first prompt"}
          {caps.note && <div className="harness-card__note">{caps.note}</div>}
        </div>
      )}
      <label className="field harness-card__field">
        <span className="field__label">Binary</span>
        <div className="field__row">
          <input
            className="input input--small"
            placeholder="Auto-detect"
            title="Empty: looked for on your PATH and in the usual install folders"
            value={props.path}
            spellCheck={false}
            data-field={`path-${name}`}
            onChange={(e) => props.onPath(e.target.value)}
          />
          <button
            type="button"
            className="button button--small"
            data-action={`check-path-${name}`}
            disabled={!props.path.trim() || check?.state === "checking"}
            onClick={props.onCheck}
          >
            Check
          </button>
        </div>
      </label>
      {check?.state === "checking" && (
        <div className="harness-card__note" data-path-check="checking">
          <Spinner size={10} /> Checking…
        </div>
      )}
      {check?.state === "ok" && (
        <div className="harness-card__note" data-path-check="ok">
          <CheckIcon width={10} height={10} /> {HARNESS_NAMES[name] ?? name} {check.report.version} at{" "}
          {check.report.path}
        </div>
      )}
      {check?.state === "error" && (
        <div className="harness-card__error" role="alert" data-path-check="error" data-code={check.code}>
          {check.code === "invalid_input" ? "Not usable here: " : "Cannot be started: "}
          {check.message}
        </div>
      )}
    </div>
  );
}

export function SettingsDialog() {
  const saved = useApp((s) => s.settings);
  const doctor = useApp((s) => s.doctor);
  const [draft, setDraft] = useState<Settings>(saved);
  const [busy, setBusy] = useState(false);
  const [checks, setChecks] = useState<Partial<Record<HarnessName, PathCheck>>>({});
  // Changed harness paths were checked and are shown: the next Save saves them.
  const [confirming, setConfirming] = useState(false);
  const pathsChanged =
    JSON.stringify(draft.harness_paths) !== JSON.stringify(saved.harness_paths);
  const changed = changedHarnessPaths(saved.harness_paths, draft.harness_paths);

  const setPath = (name: HarnessName, value: string) => {
    setDraft((d) => ({ ...d, harness_paths: { ...d.harness_paths, [name]: value.trim() ? value : null } }));
    setChecks(({ [name]: _dropped, ...rest }) => rest);
    setConfirming(false);
  };

  const runChecks = async (list: { name: HarnessName; path: string }[]) => {
    setChecks((c) => ({ ...c, ...Object.fromEntries(list.map(({ name }) => [name, { state: "checking" }])) }));
    const results = await checkHarnessPaths(list);
    setChecks((c) => ({ ...c, ...results }));
    return list.every(({ name }) => results[name]?.state === "ok");
  };

  return (
    <Modal title="Settings" label="settings" wide>
      <form
        className="form"
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          if (changed.length > 0 && !confirming) {
            // A new harness path is checked first and shown; the user confirms with Save.
            const allOk = await runChecks(changed);
            setBusy(false);
            setConfirming(allOk);
            return;
          }
          const ok = await saveSettings(draft);
          setBusy(false);
          if (ok) closeDialog();
        }}
      >
        <section className="settings-section">
          <h3>Forks open in</h3>
          <div className="segmented" role="radiogroup" aria-label="Forks open in">
            {(["window", "tab"] as const).map((v) => (
              <label key={v} className="segmented__item" data-checked={draft.fork_opens_in === v ? "true" : undefined}>
                <input
                  type="radio"
                  name="fork_opens_in"
                  value={v}
                  data-setting={`fork-opens-in-${v}`}
                  checked={draft.fork_opens_in === v}
                  onChange={() => setDraft((d) => ({ ...d, fork_opens_in: v }))}
                />
                {v === "window" ? "A new window" : "A new tab"}
              </label>
            ))}
          </div>
          <p className="settings-hint">Hold Ctrl (⌘ on macOS) while clicking Fork for the other one.</p>
        </section>
        <section className="settings-section" data-settings-section="fork-files">
          <h3>When I fork</h3>
          <div className="segmented" role="radiogroup" aria-label="When I fork">
            {(["worktree", "same_folder"] as const).map((v) => (
              <label key={v} className="segmented__item" data-checked={draft.fork_files === v ? "true" : undefined}>
                <input
                  type="radio"
                  name="fork_files"
                  value={v}
                  data-setting={`fork-files-${v}`}
                  checked={draft.fork_files === v}
                  onChange={() => setDraft((d) => ({ ...d, fork_files: v }))}
                />
                {v === "worktree" ? "A new worktree with the files as of that message" : "The same folder"}
              </label>
            ))}
          </div>
          <p className="settings-hint">
            A worktree when the thread has checkpoints (its folder is in git); the Fork menu offers the other one.
          </p>
          <label className="field field--inline">
            <span className="field__label">Remove checkpoints of archived threads after</span>
            <input
              className="input input--number"
              type="number"
              min={0}
              max={3650}
              data-setting="prune-checkpoints-days"
              value={draft.prune_checkpoints_days}
              onChange={(e) => {
                const days = Math.max(0, Math.min(3650, Math.round(Number(e.target.value) || 0)));
                setDraft((d) => ({ ...d, prune_checkpoints_days: days }));
              }}
            />
            <span>days (0: never)</span>
          </label>
          <label className="field field--inline">
            <span className="field__label">In a race, at most</span>
            <input
              className="input input--number"
              type="number"
              min={0}
              max={64}
              data-setting="max-agents"
              value={draft.max_agents}
              onChange={(e) => {
                const agents = Math.max(0, Math.min(64, Math.round(Number(e.target.value) || 0)));
                setDraft((d) => ({ ...d, max_agents: agents }));
              }}
            />
            <span>agents at once (0: one per core); the other lanes wait, queued</span>
          </label>
          <label className="field field--inline">
            <span className="field__label">Warn when a thread's own turns cost more than $</span>
            <input
              className="input input--number"
              type="number"
              min={0}
              step={0.5}
              data-setting="cost-warning"
              value={draft.cost_warning_cents / 100}
              onChange={(e) => {
                const cents = Math.max(0, Math.min(1_000_000, Math.round((Number(e.target.value) || 0) * 100)));
                setDraft((d) => ({ ...d, cost_warning_cents: cents }));
              }}
            />
            <span>(0: never; a fork counts only its turns after the fork point)</span>
          </label>
        </section>
        <section className="settings-section">
          <h3>Theme</h3>
          <div className="segmented" role="radiogroup" aria-label="Theme">
            {(["system", "light", "dark"] as const).map((v) => (
              <label key={v} className="segmented__item" data-checked={draft.theme === v ? "true" : undefined}>
                <input
                  type="radio"
                  name="theme"
                  value={v}
                  data-setting={`theme-${v}`}
                  checked={draft.theme === v}
                  onChange={() => setDraft((d) => ({ ...d, theme: v }))}
                />
                {v === "system" ? "Follow the system" : v === "light" ? "Light" : "Dark"}
              </label>
            ))}
          </div>
        </section>
        <section className="settings-section" data-settings-section="default-modes">
          <h3>New threads start in</h3>
          <div className="mode-defaults">
            {(["claude", "codex", "pi"] as const).map((name) => (
              <div key={name} className="mode-defaults__row" data-default-mode={name}>
                <span className="mode-defaults__name">
                  <span className={`harness-dot harness-dot--${name}`} aria-hidden />
                  {HARNESS_NAMES[name]}
                </span>
                <ModePicker
                  harness={name}
                  report={doctor?.find((r) => r.name === name)}
                  value={defaultModeFor(draft.default_modes, name)}
                  onChange={(c) => setDraft((d) => ({ ...d, default_modes: withDefaultMode(d.default_modes, name, c) }))}
                />
              </div>
            ))}
          </div>
          <p className="settings-hint">New thread preselects these; a thread&apos;s header changes its own.</p>
        </section>
        <section className="settings-section">
          <div className="settings-section__head">
            <h3>Harnesses</h3>
            <button type="button" className="button button--ghost button--small" onClick={() => void loadDoctor(true)}>
              <RefreshIcon width={12} height={12} /> Check again
            </button>
          </div>
          <div className="harness-grid">
            {(["claude", "codex", "pi"] as const).map((name) => (
              <HarnessCard
                key={name}
                name={name}
                report={doctor?.find((r) => r.name === name)}
                path={draft.harness_paths[name] ?? ""}
                onPath={(p) => setPath(name, p)}
                check={checks[name]}
                onCheck={() => {
                  const path = (draft.harness_paths[name] ?? "").trim();
                  if (path) void runChecks([{ name, path }]);
                }}
              />
            ))}
          </div>
          {confirming && changed.length > 0 && (
            <div className="settings-hint" role="status" data-harness-confirm>
              Use{" "}
              {changed
                .map(({ name }) => {
                  const c = checks[name];
                  const what = c?.state === "ok" ? `${c.report.path} (${c.report.version})` : name;
                  return `${what} for ${HARNESS_NAMES[name] ?? name}`;
                })
                .join(", ")}
              ? Press Save again to confirm.
            </div>
          )}
          {!confirming && changed.some(({ name }) => checks[name]?.state === "error") && (
            <p className="settings-hint settings-hint--warn" data-harness-refused>
              Nothing was saved: fix or clear the binary paths marked above.
            </p>
          )}
          {pathsChanged && (
            <p className="settings-hint settings-hint--warn">Binary paths take effect when Forkhost next starts.</p>
          )}
        </section>
        <AcpAgentsSection />
        <TrustedFoldersSection />
        <CliToolSection />
        <UpdateSettings
          checkAtStart={draft.check_for_updates}
          onCheckAtStart={(on) => setDraft((d) => ({ ...d, check_for_updates: on }))}
        />
        <ModalFooter>
          <button
            type="submit"
            className="button button--primary"
            data-action="save-settings"
            data-confirming={confirming ? "true" : undefined}
            disabled={busy}
          >
            {busy && changed.length > 0 && !confirming && <Spinner size={12} />}
            {confirming ? "Confirm and save" : "Save"}
          </button>
        </ModalFooter>
      </form>
    </Modal>
  );
}
