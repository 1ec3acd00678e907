// Races (docs/architecture.md "Race"): the race dialog's state, the races this window started
// (their lanes from `race-lane` events, their end from `race-ended`), which one the source's tab
// shows, and keeping one lane after its loss was shown. A store of its own: nothing else reads it.
import type { ForkAt } from "../bindings/ForkAt";
import type { KeepPlan } from "../bindings/KeepPlan";
import type { LaneArgs } from "../bindings/LaneArgs";
import type { RaceLane } from "../bindings/RaceLane";
import * as ipc from "../ipc";
import { createStore, useSelector } from "../store";
import { parseSelection } from "../fork/selection";
import { activeTabOf, store, updateSlot } from "../state";
import { loadThread } from "../threads/cache";
import { notify, notifyError } from "../ui/toasts";

export interface RaceAsk {
  threadId: string;
  turn: number;
  /** A user message races from before its turn (the prompt prefilled with it), a reply after. */
  role: "user" | "assistant" | "tool";
  prefill: string;
}

export interface RaceRun {
  run: string;
  source: string;
  prompt: string;
  /** How many lanes were asked for (placeholders until each lane is made). */
  size: number;
  lanes: RaceLane[];
  /** Per lane thread: Date.now() when it was seen running (for its live clock). */
  runningSince: Record<string, number>;
  ended: boolean;
  error: string | null;
  /** The lane kept, once kept. */
  kept: string | null;
}

export interface RaceState {
  ask: RaceAsk | null;
  runs: Record<string, RaceRun>;
  /** Per source thread: the run its tab shows instead of the conversation. */
  shown: Record<string, string>;
}

export const races = createStore<RaceState>({ ask: null, runs: {}, shown: {} });

export function useRaces<T>(selector: (state: RaceState) => T): T {
  return useSelector(races, selector);
}

export function openRaceDialog(ask: RaceAsk) {
  races.set({ ask });
}

/** Fork ×N… on the selected message (the latest reply when none is), as its menu item opens it:
 * the app menu's item and its key (ui/src/shortcuts.ts). */
export function raceSelected() {
  const state = store.get();
  const tab = activeTabOf(state);
  if (!tab || tab.kind !== "conversation") return;
  const turns = state.slots[tab.thread_id]?.detail?.turns ?? [];
  const last = turns.at(-1);
  if (!last) return;
  const sel = state.selected[tab.thread_id];
  const at = (sel ? parseSelection(sel) : null) ?? { turn: Number(last.number), role: "assistant" as const };
  const messages = turns.find((t) => Number(t.number) === at.turn)?.messages ?? [];
  const prefill =
    at.role === "user"
      ? messages
          .filter((m) => m.role === "user")
          .map((m) => m.text)
          .join("\n\n")
      : "";
  openRaceDialog({ threadId: tab.thread_id, ...at, prefill });
}

export function closeRaceDialog() {
  races.set({ ask: null });
}

export function hideRace(source: string) {
  races.set((s) => {
    const shown = { ...s.shown };
    delete shown[source];
    return { shown };
  });
}

export function showRace(source: string, run: string) {
  races.set((s) => ({ shown: { ...s.shown, [source]: run } }));
}

let listening: Promise<unknown> | null = null;

function listen() {
  listening ??= Promise.all([
    ipc.onRaceLane(({ run, lane }) => laneChanged(run, lane)),
    ipc.onRaceEnded(({ run, race, error }) => {
      const current = races.get().runs[run];
      if (!current) return;
      for (const lane of race?.lanes ?? []) laneChanged(run, lane);
      patchRun(run, { ended: true, error });
      if (error) notify({ kind: "error", title: "The race did not run", message: error });
    }),
  ]);
  return listening;
}

function patchRun(run: string, patch: Partial<RaceRun> | ((r: RaceRun) => Partial<RaceRun>)) {
  races.set((s) => {
    const current = s.runs[run];
    if (!current) return {};
    const change = typeof patch === "function" ? patch(current) : patch;
    return { runs: { ...s.runs, [run]: { ...current, ...change } } };
  });
}

function laneChanged(run: string, lane: RaceLane) {
  const id = lane.thread_id;
  // A slot makes the window follow the lane's live turn (threads/hostEvents.ts).
  if (id && !races.get().runs[run]?.lanes.some((l) => l.thread_id === id)) {
    updateSlot(id, (s) => s);
  }
  patchRun(run, (r) => {
    const lanes = r.lanes.filter((l) => l.lane !== lane.lane);
    lanes.push(lane);
    lanes.sort((a, b) => a.lane - b.lane);
    const runningSince = { ...r.runningSince };
    if (id && lane.state === "running" && runningSince[id] === undefined) runningSince[id] = Date.now();
    return { lanes, runningSince };
  });
  // Its reply as stored, once its turn is over.
  if (id && (lane.state === "done" || lane.state === "failed" || lane.state === "over_budget" || lane.state === "checking"))
    void loadThread(id);
}

export interface RaceChoice {
  lanes: LaneArgs[];
  prompt: string;
  sharedFolder: boolean;
  check: string | null;
  /** US dollars the race may spend (null: no limit). */
  budgetUsd?: number | null;
}

/** Starts the race the dialog asked for and shows it in the source's tab. */
export async function startRace(ask: RaceAsk, choice: RaceChoice): Promise<boolean> {
  await listen();
  const at: ForkAt = ask.role === "user" ? { kind: "before", turn: ask.turn } : { kind: "after", turn: ask.turn };
  try {
    const run = await ipc.raceStart({
      thread_id: ask.threadId,
      at,
      lanes: choice.lanes,
      prompt: choice.prompt,
      shared_folder: choice.sharedFolder,
      check: choice.check,
      max_parallel: null,
      budget_usd: choice.budgetUsd ?? null,
    });
    races.set((s) => ({
      runs: {
        ...s.runs,
        [run]: {
          run,
          source: ask.threadId,
          prompt: choice.prompt,
          size: choice.lanes.length,
          lanes: [],
          runningSince: {},
          ended: false,
          error: null,
          kept: null,
        },
      },
      shown: { ...s.shown, [ask.threadId]: run },
      ask: null,
    }));
    return true;
  } catch (err) {
    notifyError(err, "Could not start the race");
    return false;
  }
}

/** What keeping the lane would discard, to be shown before anything changes. */
export async function planKeep(lane: string): Promise<KeepPlan | null> {
  try {
    return await ipc.keepPlan(lane);
  } catch (err) {
    notifyError(err, "Keep");
    return null;
  }
}

/** Keeps the lane with the loss shown (`plan`); the source's folder then holds its changes. */
export async function keepLane(run: string, plan: KeepPlan): Promise<boolean> {
  try {
    const kept = await ipc.keep(plan.kept, plan);
    patchRun(run, { kept: plan.kept });
    const n = kept.brought_back.files.length;
    notify({
      kind: "success",
      title: "Kept",
      message: `${n} ${n === 1 ? "file" : "files"} brought back into the source's folder (uncommitted); ${plan.others.length} other lanes archived`,
    });
    void loadThread(plan.source);
    return true;
  } catch (err) {
    notifyError(err, "Keep");
    return false;
  }
}
