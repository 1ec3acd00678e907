// "Fork ×N…": how many lanes (2–8), each lane's harness (the installed ones) and model (from
// what its harness reports, or typed), one prompt for all, the repository's check command shown
// with its exact text before it runs, and — outside git — the confirmation that lanes share the
// folder.
import { useEffect, useMemo, useState } from "react";
import type { CheckCommandView } from "../bindings/CheckCommandView";
import type { HarnessKind } from "../bindings/HarnessKind";
import { Modal } from "../ui/Modal";
import { ModalFooter } from "../ui/ModalFooter";
import { loadDoctor } from "../ui/open";
import { targetRefusal } from "../fork/continueIn";
import { HARNESSES, HARNESS_NAMES, TAKES_CONVERSATIONS } from "../harnesses";
import * as ipc from "../ipc";
import { threadById, useApp } from "../state";
import { type RaceAsk, closeRaceDialog, startRace, useRaces } from "./race";

const MIN = 2;
const MAX = 8;

interface LaneChoice {
  harness: HarnessKind;
  model: string;
}

export function RaceDialog() {
  const ask = useRaces((s) => s.ask);
  if (!ask) return null;
  return <RaceForm key={`${ask.threadId}|${ask.turn}|${ask.role}`} ask={ask} />;
}

function RaceForm({ ask }: { ask: RaceAsk }) {
  const source = useApp((s) => threadById(s, ask.threadId));
  const doctor = useApp((s) => s.doctor);
  const own = (source?.harness ?? "pi") as HarnessKind;
  const [n, setN] = useState(3);
  const [lanes, setLanes] = useState<LaneChoice[]>(() => Array.from({ length: MAX }, () => ({ harness: own, model: "" })));
  const [prompt, setPrompt] = useState(ask.prefill);
  const [models, setModels] = useState<string[]>([]);
  const [check, setCheck] = useState<CheckCommandView | null>(null);
  const [checkText, setCheckText] = useState("");
  const [runCheck, setRunCheck] = useState(false);
  const [inGit, setInGit] = useState<boolean | null>(null);
  const [shared, setShared] = useState(false);
  const [busy, setBusy] = useState(false);
  const [budgetText, setBudgetText] = useState("");
  const budget = parseBudget(budgetText);

  useEffect(() => {
    void loadDoctor();
    ipc.raceModels(ask.threadId).then(setModels, () => setModels([]));
    ipc.raceCheck(ask.threadId).then(
      (view) => {
        setCheck(view);
        setCheckText(view.command ?? "");
        setRunCheck(view.approved);
      },
      () => setCheck(null),
    );
    ipc.files(ask.threadId).then(
      (f) => setInGit(f.in_git),
      () => setInGit(null),
    );
  }, [ask.threadId]);

  const refusals = useMemo(
    () =>
      Object.fromEntries(
        HARNESSES.map((h) => [
          h,
          // A lane in another agent takes the conversation: only some agents can.
          h !== own && !TAKES_CONVERSATIONS.includes(h)
            ? `${HARNESS_NAMES[h]} cannot take a conversation from another agent`
            : targetRefusal(h, doctor?.find((r) => r.name === h)),
        ]),
      ) as Record<HarnessKind, string | undefined>,
    [doctor, own],
  );
  const shown = lanes.slice(0, n);
  // An approval covers exactly the text shown: a changed text is asked about again.
  const approvedText = check?.approved ? check.command : null;
  const textChanged = checkText.trim() !== (approvedText ?? "");
  const needsShared = inGit === false;
  const laneRefused = shown.some((l) => refusals[l.harness] !== undefined);
  const canStart = !busy && prompt.trim() !== "" && (!needsShared || shared) && !laneRefused && budget !== "bad";

  const setLane = (i: number, change: Partial<LaneChoice>) =>
    setLanes((all) => all.map((l, j) => (j === i ? { ...l, ...change } : l)));

  const submit = async () => {
    if (!canStart) return;
    setBusy(true);
    const ok = await startRace(ask, {
      lanes: shown.map((l) => ({ harness: l.harness, model: l.model.trim() || null })),
      prompt,
      sharedFolder: shared,
      check: runCheck && checkText.trim() !== "" ? checkText.trim() : null,
      // canStart refused "bad" above.
      budgetUsd: typeof budget === "number" ? budget : null,
    });
    if (!ok) setBusy(false);
  };

  const where = ask.role === "user" ? `before turn ${ask.turn}` : `after turn ${ask.turn}`;
  return (
    <Modal title={`Fork ×${n} ${where}`} label="Race" wide onClose={closeRaceDialog}>
      <form
        className="race-dialog"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <label className="race-dialog__row">
          <span>Lanes</span>
          <input
            type="number"
            name="lanes"
            min={MIN}
            max={MAX}
            value={n}
            onChange={(e) => setN(Math.max(MIN, Math.min(MAX, Number(e.target.value) || MIN)))}
          />
        </label>
        <datalist id="race-models">
          {models.map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
        <ol className="race-dialog__lanes">
          {shown.map((lane, i) => (
            <li key={i} data-race-lane-choice={i + 1}>
              <span>Lane {i + 1}</span>
              <select
                aria-label={`Lane ${i + 1} agent`}
                value={lane.harness}
                onChange={(e) => setLane(i, { harness: e.target.value as HarnessKind })}
              >
                {HARNESSES.map((h) => (
                  <option key={h} value={h} disabled={refusals[h] !== undefined} title={refusals[h]}>
                    {HARNESS_NAMES[h]}
                    {refusals[h] !== undefined ? " (not available)" : ""}
                  </option>
                ))}
              </select>
              <input
                aria-label={`Lane ${i + 1} model`}
                placeholder={lane.harness === own && models.length > 0 ? "model (default)" : "model (default; any name)"}
                list={lane.harness === own ? "race-models" : undefined}
                value={lane.model}
                onChange={(e) => setLane(i, { model: e.target.value })}
              />
            </li>
          ))}
        </ol>
        <label className="race-dialog__prompt">
          <span>Prompt for every lane</span>
          <textarea name="race-prompt" rows={4} value={prompt} onChange={(e) => setPrompt(e.target.value)} autoFocus />
        </label>
        <fieldset className="race-dialog__check">
          <legend>Check, when a lane's turn ends</legend>
          <input
            aria-label="Check command"
            placeholder="e.g. npm test (none)"
            value={checkText}
            onChange={(e) => {
              setCheckText(e.target.value);
              setRunCheck(false);
            }}
          />
          {checkText.trim() !== "" && (
            <label>
              <input type="checkbox" name="run-check" checked={runCheck} onChange={(e) => setRunCheck(e.target.checked)} />
              <span>
                Run <code>{checkText.trim()}</code> in each lane's folder
                {textChanged ? " (not run before: check to allow it)" : ""}
              </span>
            </label>
          )}
          {checkText.trim() !== "" && (
            <p className="race-dialog__warn" data-part="check-unsandboxed">
              It runs as you, outside the agents' sandboxes and approvals, and runs what the lanes wrote (scripts,
              package.json, Makefile): a lane's agent can change what it does.
            </p>
          )}
        </fieldset>
        <label className="race-dialog__budget">
          <span>Budget (US dollars, optional)</span>
          <input
            name="race-budget"
            inputMode="decimal"
            placeholder="no limit"
            value={budgetText}
            aria-invalid={budget === "bad" || undefined}
            onChange={(e) => setBudgetText(e.target.value)}
          />
          <small className="muted">
            {budget === "bad"
              ? "A positive amount, like 0.50"
              : "Once the lanes that ended spent more, the lanes still running stop."}
          </small>
        </label>
        {needsShared && (
          <label className="race-dialog__shared">
            <input type="checkbox" name="shared-folder" checked={shared} onChange={(e) => setShared(e.target.checked)} />
            <span>This folder is not in git: the lanes will share it and change each other's files. Race anyway.</span>
          </label>
        )}
        <ModalFooter onCancel={closeRaceDialog}>
          <button type="submit" className="button button--primary" name="start-race" disabled={!canStart}>
            Start {n} lanes
          </button>
        </ModalFooter>
      </form>
    </Modal>
  );
}

/** The budget field: empty for none, a positive amount ("0.50", "$2") or "bad". */
export function parseBudget(text: string): number | null | "bad" {
  const t = text.trim().replace(/^\$/, "");
  if (t === "") return null;
  const usd = Number(t);
  return Number.isFinite(usd) && usd > 0 ? usd : "bad";
}
