// The race view, in the source's tab: the lanes side by side (columns on a wide window, a grid
// or a stack when narrow), each with its streaming reply, state, time, tokens and cost (where
// the harness reports them), files changed, approval cards, check result with the output's
// tail, "queued" while it waits for a slot, Keep this one (the loss of the others shown first)
// and Compare with another lane. Each lane is an ordinary thread: Open shows it in a tab of its
// own.
import { useEffect, useState } from "react";
import type { KeepPlan } from "../bindings/KeepPlan";
import type { RaceLane } from "../bindings/RaceLane";
import { Approvals } from "../messages/ApprovalCard";
import { openDialog } from "../ui/open";
import { harnessName } from "../harnesses";
import { LiveMarkdown, Markdown } from "../markdown/Markdown";
import { useApp } from "../state";
import { openTab } from "../tabs/tabs";
import { type RaceRun, hideRace, keepLane, planKeep, useRaces } from "./race";
import { usageText, usageTitle } from "./usage";
import { figureMoney, figureTitle } from "../cost/cost";

export function RaceView({ runId }: { runId: string }) {
  const run = useRaces((s) => s.runs[runId]);
  const [now, setNow] = useState(() => Date.now());
  const [compareFrom, setCompareFrom] = useState<string | null>(null);
  useEffect(() => {
    if (!run || run.ended) return;
    const timer = window.setInterval(() => setNow(Date.now()), 250);
    return () => window.clearInterval(timer);
  }, [run]);
  if (!run) return null;
  const slots = Array.from({ length: run.size }, (_, i) => run.lanes.find((l) => l.lane === i + 1) ?? null);
  const done = run.lanes.filter((l) => l.state === "done" || l.state === "failed" || l.state === "over_budget").length;
  return (
    <section className="race" data-race={run.run} aria-label="Race">
      <header className="race__head">
        <div>
          <h2>
            Race · {run.size} lanes {run.ended ? "· ended" : `· ${done}/${run.size} done`}
          </h2>
          <p className="race__prompt" title={run.prompt}>
            {run.prompt}
          </p>
          {run.error && <p className="race__error">{run.error}</p>}
        </div>
        <button type="button" className="button" onClick={() => hideRace(run.source)}>
          Back to the conversation
        </button>
      </header>
      {compareFrom && <p className="race__hint">Choose the lane to compare lane {laneNumber(run, compareFrom)} with.</p>}
      <div className="race__lanes" style={{ ["--lanes" as string]: run.size }}>
        {slots.map((lane, i) => (
          <LaneCard
            key={i}
            run={run}
            index={i + 1}
            lane={lane}
            now={now}
            compareFrom={compareFrom}
            onCompare={(id) => {
              if (compareFrom && compareFrom !== id) {
                openDialog({ kind: "compare", threadId: compareFrom, other: id });
                setCompareFrom(null);
              } else setCompareFrom(compareFrom === id ? null : id);
            }}
          />
        ))}
      </div>
    </section>
  );
}

function laneNumber(run: RaceRun, thread: string) {
  return run.lanes.find((l) => l.thread_id === thread)?.lane ?? "?";
}

function seconds(ms: number) {
  return `${(ms / 1000).toFixed(1)} s`;
}

const STATE_WORDS: Record<RaceLane["state"], string> = {
  queued: "queued",
  running: "running",
  waiting_for_approval: "waiting for approval",
  checking: "checking",
  done: "done",
  failed: "failed",
  over_budget: "over budget",
};

function LaneCard(props: {
  run: RaceRun;
  index: number;
  lane: RaceLane | null;
  now: number;
  compareFrom: string | null;
  onCompare: (thread: string) => void;
}) {
  const { run, index, lane, now } = props;
  const id = lane?.thread_id ?? null;
  const slot = useApp((s) => (id ? s.slots[id] : undefined));
  const [plan, setPlan] = useState<KeepPlan | null>(null);
  const [keeping, setKeeping] = useState(false);
  if (!lane) {
    return (
      <article className="race-lane race-lane--forking" data-race-lane={index} data-lane-state="forking">
        <header className="race-lane__head">
          <strong>Lane {index}</strong>
          <span className="race-lane__state">forking…</span>
        </header>
      </article>
    );
  }
  const started = id ? run.runningSince[id] : undefined;
  const ended = lane.state === "done" || lane.state === "failed" || lane.state === "over_budget" || lane.state === "checking";
  const elapsed = ended || started === undefined ? lane.elapsed_ms : now - started;
  const liveText = slot?.live?.items.map((item) => (item.kind === "text" ? item.text : "")).join("") ?? "";
  const turns = slot?.detail?.turns ?? [];
  const lastReply = (turns.at(-1)?.messages ?? [])
    .filter((m) => m.role === "assistant")
    .map((m) => m.text)
    .join("\n\n");
  const files = lane.files ?? [];
  const added = files.reduce((n, f) => n + f.added_lines, 0);
  const removed = files.reduce((n, f) => n + f.removed_lines, 0);
  const kept = run.kept === id;
  const discarded = run.kept !== null && !kept;
  return (
    <article
      className={`race-lane race-lane--${lane.state}${kept ? " race-lane--kept" : ""}`}
      data-race-lane={lane.lane}
      data-lane-state={lane.state}
      data-thread-id={id ?? undefined}
    >
      <header className="race-lane__head">
        <strong>Lane {lane.lane}</strong>
        <span>
          {harnessName(lane.harness)}
          {lane.model ? ` · ${lane.model}` : ""}
        </span>
        <span className={`race-lane__state race-lane__state--${lane.state}`}>{STATE_WORDS[lane.state]}</span>
        {elapsed > 0 && <span className="race-lane__time">{seconds(elapsed)}</span>}
        {lane.usage && (
          <span className="race-lane__usage" data-lane-usage title={usageTitle(lane.usage)}>
            {usageText(lane.usage)}
          </span>
        )}
        {lane.spent && figureMoney(lane.spent) && (
          <span className="race-lane__spent" data-lane-spent title={`Since the fork point: ${figureTitle(lane.spent)}`}>
            {figureMoney(lane.spent)}
          </span>
        )}
      </header>
      {lane.message && (
        <p
          className={`race-lane__message${lane.state === "failed" || lane.state === "over_budget" ? " race-lane__message--failed" : ""}`}
        >
          {lane.message}
        </p>
      )}
      <div className="race-lane__reply" data-lane-reply>
        {/* Before its turn ends the stored turns are the fork point's: only the live reply. */}
        {!ended ? liveText && <LiveMarkdown text={liveText} /> : lastReply ? <Markdown text={lastReply} /> : liveText && <Markdown text={liveText} />}
      </div>
      {id && <Approvals threadId={id} />}
      {lane.files && (
        <details className="race-lane__files" data-lane-files>
          <summary>
            {files.length} {files.length === 1 ? "file" : "files"} changed <span className="added">+{added}</span>{" "}
            <span className="removed">−{removed}</span>
          </summary>
          <ul>
            {files.map((f) => (
              <li key={f.path}>
                {f.status} {f.path} +{f.added_lines} −{f.removed_lines}
              </li>
            ))}
          </ul>
        </details>
      )}
      {lane.check && (
        <div className={`race-lane__check race-lane__check--${lane.check.passed ? "passed" : "failed"}`} data-lane-check={lane.check.passed ? "passed" : "failed"}>
          <strong>
            Check {lane.check.passed ? "passed" : lane.check.timed_out ? "timed out" : "failed"}
            {lane.check.exit_code !== null && !lane.check.passed ? ` (exit ${lane.check.exit_code})` : ""}
          </strong>{" "}
          <code>{lane.check.command}</code>
          {lane.check.tail && <pre className="race-lane__tail">{lane.check.tail}</pre>}
        </div>
      )}
      {plan && (
        <div className="race-lane__loss" data-keep-plan role="alert">
          <p>
            Keeping lane {lane.lane} brings its changes into the source's folder (uncommitted) and archives the other lanes
            with their worktrees:
          </p>
          <ul>
            {plan.others.map((o) => (
              <li key={o.thread_id}>
                Lane {o.lane}:{" "}
                {o.loss && o.loss.exists
                  ? `${o.loss.files.length} changed ${o.loss.files.length === 1 ? "file" : "files"}${o.loss.commits ? `, ${o.loss.commits} commits` : ""} lost`
                  : "nothing to lose"}
              </li>
            ))}
          </ul>
          <button
            type="button"
            className="button button--danger"
            name="confirm-keep"
            disabled={keeping}
            onClick={async () => {
              setKeeping(true);
              if (await keepLane(run.run, plan)) setPlan(null);
              setKeeping(false);
            }}
          >
            Discard the others and keep lane {lane.lane}
          </button>
          <button type="button" className="button" onClick={() => setPlan(null)}>
            Cancel
          </button>
        </div>
      )}
      <footer className="race-lane__actions">
        {id && (
          <>
            <button
              type="button"
              className="button button--primary"
              name="keep-lane"
              disabled={!run.ended || run.kept !== null || lane.state === "failed"}
              title={run.ended ? undefined : "Every lane's turn ends first"}
              onClick={async () => setPlan(await planKeep(id))}
            >
              {kept ? "Kept" : discarded ? "Archived" : "Keep this one"}
            </button>
            <button type="button" className="button" name="compare-lane" disabled={discarded} onClick={() => props.onCompare(id)}>
              {props.compareFrom === id ? "Cancel compare" : props.compareFrom ? `Compare with lane ${lane.lane}` : "Compare…"}
            </button>
            <button type="button" className="button" name="open-lane" onClick={() => openTab(id)}>
              Open
            </button>
          </>
        )}
      </footer>
    </article>
  );
}
