// The first-run list: each harness found (version, where, "newer than tested") or not, and for a
// missing or signed-out one what to do on this OS: the command to copy, the CLI's own install
// page (in the browser), Choose its file… (checked like a Settings path, used at once) and
// Check again. Shown by the first-run dialog, the empty window and New thread when no agent can
// start a thread.
import { useState } from "react";
import type { HarnessReport } from "../bindings/HarnessReport";
import { HARNESS_NAMES } from "../harnesses";
import { ArrowUpRightIcon, CheckIcon, CopyIcon, FolderIcon, RefreshIcon, Spinner } from "../ui/icons";
import { chooseHarnessPath, doctorAgain, IpcError, openExternal, pickFile } from "../ipc";
import { store, useApp } from "../state";
import { loadHostDoctor, useRemote } from "../remote/remote";
import { notifyError } from "../ui/toasts";
import { foundByWords, HARNESS_ORDER, type HarnessName, harnessState, statusLabel } from "./words";

/** Looks for every harness again and shows what was found. */
export async function checkAgain() {
  try {
    store.set({ doctor: await doctorAgain() });
  } catch (err) {
    notifyError(err, "Agents");
  }
}

/** Replaces one harness's report (after Choose its file…). */
function putReport(report: HarnessReport) {
  const doctor = store.get().doctor ?? [];
  const others = doctor.filter((r) => r.name !== report.name);
  store.set({ doctor: [...others, report].sort((a, b) => HARNESS_ORDER.indexOf(a.name) - HARNESS_ORDER.indexOf(b.name)) });
}

function CommandLine({ command, label, needs }: { command: string; label?: string; needs?: string | null }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="setup-command" data-command={command}>
      {label && <span className="setup-command__label">{label}</span>}
      <div className="setup-command__row">
        <code className="setup-command__text">{command}</code>
        <button
          type="button"
          className="icon-button icon-button--small"
          aria-label={`Copy ${command}`}
          title={copied ? "Copied" : "Copy"}
          data-action="copy-command"
          onClick={() => {
            void navigator.clipboard?.writeText(command).then(
              () => setCopied(true),
              () => {},
            );
          }}
        >
          {copied ? <CheckIcon width={12} height={12} /> : <CopyIcon width={12} height={12} />}
        </button>
      </div>
      {needs && <span className="setup-command__needs">{needs}</span>}
    </div>
  );
}

type Choice = { state: "idle" } | { state: "checking" } | { state: "error"; message: string };

/** One harness's card; `host`: on that remote host (its file cannot be chosen from here, and
 * its commands run in a terminal there). */
function SetupCard({ name, report, host }: { name: HarnessName; report: HarnessReport | undefined; host?: string }) {
  const [choice, setChoice] = useState<Choice>({ state: "idle" });
  const state = harnessState(report);
  const product = HARNESS_NAMES[name];
  const choose = async () => {
    const path = await pickFile(`Choose the ${product} program`).catch(() => null);
    if (!path) return;
    setChoice({ state: "checking" });
    try {
      putReport(await chooseHarnessPath(name, path));
      setChoice({ state: "idle" });
    } catch (err) {
      const message = err instanceof IpcError ? err.message : String(err);
      setChoice({ state: "error", message });
    }
  };
  const where = report?.path ? foundByWords(report.found_by) : null;
  return (
    <li className="setup-card" data-harness={name} data-state={state}>
      {/* Left: who it is and what can be done here; right: what to run in a terminal. */}
      <div className="setup-card__id">
        <div className="setup-card__head">
          <span className={`harness-dot harness-dot--${name}`} aria-hidden />
          <strong>{product}</strong>
          {state === "checking" ? (
            <Spinner size={12} />
          ) : (
            <span className={`pill ${state === "ready" ? "pill--ok" : state === "missing" ? "pill--bad" : "pill--warn"}`} data-status>
              {state === "ready" && <CheckIcon width={12} height={12} />} {statusLabel(report)}
            </span>
          )}
          {report?.support === "newer_than_tested" && (
            <span className="pill" data-support="newer_than_tested" title="Newer than the newest version Forkhost's tests ran; it should work.">
              newer than tested
            </span>
          )}
          {report?.support === "older_than_supported" && (
            <span className="pill pill--bad" data-support="older_than_supported">
              older than supported: update it
            </span>
          )}
      </div>
      {report?.path && (
        <>
          <div className="setup-card__where" title={report.path}>
            {report.path.length > 40 ? `…${report.path.slice(-39)}` : report.path}
          </div>
          {where && <div className="setup-card__found-by">Found through {where}</div>}
          {state === "ready" && report.sign_in === "signed_in" && (
            <div className="setup-card__found-by" data-signed-in>
              Signed in
            </div>
          )}
        </>
      )}
      {report && state !== "ready" && (
        <div className="setup-card__actions">
          {!host && (
            <button type="button" className="button button--small" data-action={`choose-file-${name}`} disabled={choice.state === "checking"} onClick={() => void choose()}>
              {choice.state === "checking" ? <Spinner size={11} /> : <FolderIcon width={12} height={12} />}
              Choose its file…
            </button>
          )}
          <button type="button" className="button button--ghost button--small" data-action={`install-page-${name}`} onClick={() => void openExternal(report.install.page)}>
            Install page <ArrowUpRightIcon width={11} height={11} />
          </button>
        </div>
      )}
      </div>
      <div className="setup-card__body">
        {report && state === "missing" && (
          <div className="setup-card__steps">
            <p className="setup-card__say">{host ? `Install it in a terminal on ${host}:` : "Install it in a terminal:"}</p>
            {report.install.commands.map((c) => (
              <CommandLine key={c.command} command={c.command} label={c.label} needs={c.needs} />
            ))}
          </div>
        )}
        {report && state === "signed_out" && (
          <div className="setup-card__steps">
            <p className="setup-card__say">
              {host ? `Installed, but not signed in. Sign in in a terminal on ${host}:` : "Installed, but not signed in. Sign in in a terminal:"}
            </p>
            <CommandLine command={report.install.sign_in_command} />
          </div>
        )}
        {state === "ready" && <p className="setup-card__say">Ready: New thread can start with it.</p>}
        {choice.state === "error" && (
          <div className="harness-card__error" role="alert" data-choose-error>
            That file can't be used: {choice.message}
          </div>
        )}
      </div>
    </li>
  );
}

/** Every harness's card, then Check again: this machine's, or `host`'s as its forkhost finds
 * them (through its login shell's PATH). */
export function HarnessSetupList({ host }: { host?: string } = {}) {
  const here = useApp((s) => s.doctor);
  const there = useRemote((s) => (host ? s.doctors[host] : undefined));
  const doctor = host ? (Array.isArray(there) ? there : null) : here;
  const [busy, setBusy] = useState(false);
  return (
    <div className="setup" data-first-run-list>
      <ul className="setup__list" role="list">
        {HARNESS_ORDER.map((name) => (
          <SetupCard key={name} name={name} report={doctor?.find((r) => r.name === name)} host={host} />
        ))}
      </ul>
      <div className="setup__foot">
        {host && there === "failed" && (
          <span className="setup__hint" role="alert" data-host-doctor-failed>
            {host}'s agents could not be listed: check its connection, then check again.
          </span>
        )}
        <span className="setup__hint">
          {host ? `Installed one on ${host}? Sign in there, then check again.` : "Installed one? Open a new terminal to sign in, then check again."}
        </span>
        <button
          type="button"
          className="button button--small"
          data-action="check-again"
          disabled={busy}
          onClick={() => {
            setBusy(true);
            void (host ? loadHostDoctor(host) : checkAgain()).finally(() => setBusy(false));
          }}
        >
          {busy ? <Spinner size={11} /> : <RefreshIcon width={12} height={12} />} Check again
        </button>
      </div>
    </div>
  );
}

