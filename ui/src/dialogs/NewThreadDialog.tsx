// A new thread: the machine (this one, or a remote host the user added), harness, its
// permission mode (Settings' default for it preselected), folder (remembered from the last one
// on that machine), title, and an optional first prompt. A harness that cannot start here says
// why in the dialog; the only usable one is preselected; with none, the dialog is the first-run
// list instead of a form that cannot start. On a remote host its own forkhost judges the
// harness and the folder, and says so in words if it cannot start there.
import { useEffect, useRef, useState } from "react";
import type { HarnessKind } from "../bindings/HarnessKind";
import { FolderIcon, Spinner } from "../ui/icons";
import { inApp, pickFolder } from "../ipc";
import { HARNESS_NAMES, HARNESSES, isHarness } from "../harnesses";
import { HarnessSetupList } from "../firstRun/HarnessSetup";
import { harnessState, noneUsable, startBlocker, unavailableLine, usableHarnesses } from "../firstRun/words";
import { defaultModeFor, type ModeChoice, validChoice } from "../permissions";
import { store, useApp } from "../state";
import { loadHostDoctor, loadHosts, remote, useRemote } from "../remote/remote";
import { createThread } from "../threads/threadActions";
import { Modal } from "../ui/Modal";
import { ModalFooter } from "../ui/ModalFooter";
import { ModePicker } from "./ModePicker";
import { closeDialog, openDialog } from "../ui/open";

function remembered(key: string): string {
  try {
    return localStorage.getItem(key) ?? "";
  } catch {
    return "";
  }
}

export function NewThreadDialog() {
  const doctor = useApp((s) => s.doctor);
  const defaults = useApp((s) => s.settings.default_modes);
  // What the user picked per harness; until then, Settings' default for it.
  const [picked, setPicked] = useState<Partial<Record<HarnessKind, ModeChoice>>>({});
  // What the user clicked; until then the remembered harness, or the only usable one.
  const [pickedHarness, setHarness] = useState<HarnessKind | null>(null);
  const [rememberedHarness] = useState((): HarnessKind => {
    const last = remembered("forkhost.lastHarness");
    return isHarness(last) ? last : "claude";
  });
  // A host's set-up view opens this on that host.
  const [startHost] = useState(() => {
    const dialog = store.get().dialog;
    return (dialog?.kind === "new-thread" && dialog.host) || "";
  });
  const [cwd, setCwd] = useState(() =>
    remembered(startHost ? `forkhost.lastFolder.${startHost}` : "forkhost.lastFolder"),
  );
  // "": this machine; else the remote host the thread starts on.
  const [machine, setMachine] = useState(startHost);
  const hosts = useRemote((s) => s.hosts);
  useEffect(() => {
    if (remote.get().hosts === null) void loadHosts();
  }, []);
  const hostDoctors = useRemote((s) => s.doctors);
  const pickMachine = (next: string) => {
    setMachine(next);
    // That machine's agents, for the harness choice (read once; its own list after that).
    if (next && !remote.get().doctors[next]) void loadHostDoctor(next);
    setCwd(remembered(next ? `forkhost.lastFolder.${next}` : "forkhost.lastFolder"));
  };
  const [title, setTitle] = useState("");
  const [prompt, setPrompt] = useState("");
  const [busy, setBusy] = useState(false);
  const promptRef = useRef<HTMLTextAreaElement>(null);
  const folderRef = useRef<HTMLInputElement>(null);

  // Only on open: a remembered folder puts the keyboard in the prompt, none in the folder field.
  const cwdAtOpen = useRef(cwd);
  useEffect(() => {
    (cwdAtOpen.current ? promptRef : folderRef).current?.focus();
  }, []);

  // The chosen machine's harness reports: this one's, or the host's doctor's once read (until
  // then, and when it could not say, the host judges the harness when the thread starts).
  const hostDoctor = machine ? hostDoctors[machine] : undefined;
  const reports = machine ? (Array.isArray(hostDoctor) ? hostDoctor : null) : doctor;
  const reportOf = (name: HarnessKind) => reports?.find((r) => r.name === name);
  const unavailable = (name: HarnessKind) => {
    if (!reports) return false;
    const state = harnessState(reportOf(name));
    return state === "missing" || state === "signed_out";
  };
  // The remembered harness, unless it can't start and exactly one other can: then that one (a
  // newcomer with only Pi installed starts with Pi).
  const usable = usableHarnesses(reports);
  const harness =
    pickedHarness ?? (usable.length === 1 && unavailable(rememberedHarness) ? usable[0]! : rememberedHarness);
  const blocker = reports ? startBlocker({ harness, report: reportOf(harness), cwd }) : null;
  const canCreate = !busy && cwd.trim().length > 0 && !unavailable(harness);
  const choice = picked[harness] ?? validChoice(reportOf(harness), defaultModeFor(defaults, harness));
  const why = reports ? unavailableLine(reportOf(harness), harness) : null;

  const submit = async () => {
    if (!canCreate) return;
    setBusy(true);
    const ok = await createThread({ harness, host: machine || null, cwd: cwd.trim(), title, prompt, ...choice });
    setBusy(false);
    if (ok) closeDialog();
  };

  if (noneUsable(doctor) && !hosts?.length) {
    return (
      <Modal title="New thread" label="new-thread" wide>
        <div className="first-run" data-new-thread-setup>
          <p className="first-run__lead">
            No agent can start a thread yet. Install or sign in one of these, and New thread is ready.
          </p>
          <HarnessSetupList />
          <ModalFooter cancelLabel="Close" />
        </div>
      </Modal>
    );
  }

  return (
    <Modal title="New thread" label="new-thread">
      <form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        {!!hosts?.length && (
          <fieldset className="field">
            <legend className="field__label">Machine</legend>
            <div className="segmented" role="radiogroup" aria-label="Machine">
              {["", ...hosts.map((h) => h.name)].map((name) => (
                <label key={name || "here"} className="segmented__item" data-checked={machine === name ? "true" : undefined}>
                  <input
                    type="radio"
                    name="machine"
                    value={name}
                    data-machine={name || "here"}
                    checked={machine === name}
                    onChange={() => pickMachine(name)}
                  />
                  {name || "This machine"}
                </label>
              ))}
            </div>
          </fieldset>
        )}
        <fieldset className="field">
          <legend className="field__label">Harness</legend>
          <div className="segmented" role="radiogroup" aria-label="Harness">
            {HARNESSES.map((name) => {
              const r = reportOf(name);
              const off = unavailable(name);
              return (
                <label
                  key={name}
                  className="segmented__item"
                  data-checked={harness === name ? "true" : undefined}
                  data-disabled={off ? "true" : undefined}
                  title={off ? (unavailableLine(r, name) ?? undefined) : r?.version ? `${HARNESS_NAMES[name]} ${r.version}` : undefined}
                >
                  <input
                    type="radio"
                    name="harness"
                    value={name}
                    data-harness={name}
                    checked={harness === name}
                    disabled={off}
                    onChange={() => setHarness(name)}
                  />
                  <span className={`harness-dot harness-dot--${name}`} aria-hidden />
                  {HARNESS_NAMES[name]}
                  {r?.version && <span className="segmented__meta">{r.version.split(" ")[0]}</span>}
                </label>
              );
            })}
          </div>
          {why && (
            <p className="field__why" role="status" data-harness-why={harness}>
              {why}{" "}
              {!machine && (
                <button type="button" className="link-button" data-action="open-first-run" onClick={() => openDialog({ kind: "first-run" })}>
                  How to set it up
                </button>
              )}
            </p>
          )}
          {!why &&
            HARNESSES.filter((n) => n !== harness && unavailable(n)).map((n) => (
              <p key={n} className="field__why field__why--quiet" data-harness-why={n}>
                {unavailableLine(reportOf(n), n)}
              </p>
            ))}
        </fieldset>
        <fieldset className="field">
          <legend className="field__label">Permissions</legend>
          <ModePicker
            harness={harness}
            report={reportOf(harness)}
            value={choice}
            onChange={(c) => setPicked((p) => ({ ...p, [harness]: c }))}
          />
        </fieldset>
        <label className="field">
          <span className="field__label">Project folder</span>
          <div className="field__row">
            <input
              ref={folderRef}
              className="input"
              name="cwd"
              data-field="cwd"
              placeholder={machine ? `a folder on ${machine}, e.g. ~/src/app` : "/path/to/project"}
              value={cwd}
              spellCheck={false}
              onChange={(e) => setCwd(e.target.value)}
            />
            {inApp() && !machine && (
              <button
                type="button"
                className="button"
                onClick={async () => {
                  const chosen = await pickFolder(cwd || undefined).catch(() => null);
                  if (chosen) setCwd(chosen);
                }}
              >
                <FolderIcon width={14} height={14} />
                Browse…
              </button>
            )}
          </div>
        </label>
        <label className="field">
          <span className="field__label">
            Title <span className="field__optional">optional</span>
          </span>
          <input
            className="input"
            name="title"
            data-field="title"
            placeholder="Defaults to the folder's name"
            value={title}
            onChange={(e) => setTitle(e.target.value)}
          />
        </label>
        <label className="field">
          <span className="field__label">First prompt</span>
          <textarea
            ref={promptRef}
            className="input input--area"
            name="prompt"
            data-field="prompt"
            rows={4}
            placeholder="What should it do? (Ctrl+Enter to start)"
            value={prompt}
            onChange={(e) => setPrompt(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
                e.preventDefault();
                void submit();
              }
            }}
          />
        </label>
        <ModalFooter
          note={
            blocker && (
              <span className="form__blocker" data-start-blocker>
                {blocker}
              </span>
            )
          }
        >
          <button
            type="submit"
            className="button button--primary"
            data-action="create-thread"
            disabled={!canCreate}
            title={blocker ?? undefined}
          >
            {busy && <Spinner size={12} />}
            Start thread
          </button>
        </ModalFooter>
      </form>
    </Modal>
  );
}
