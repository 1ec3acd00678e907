// The approval cards above the composer: one per request the thread's runtime waits on, saying
// what it wants to do (as plain text, never markup) with the four answers; a question request
// gets a QuestionCard instead.
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import type { ApprovalDecision, ApprovalView } from "../ipc";
import type { SubjectView } from "../bindings/SubjectView";
import { useApp } from "../state";
import { answerApproval, enterMayApprove, markShown } from "../threads/approvals";
import { QuestionCard } from "./QuestionCard";
import { needsMore, SHOWN_LINES, textSize, visibleText } from "./visible";

const NONE: ApprovalView[] = [];

function inputText(input: unknown): string {
  try {
    return JSON.stringify(input, null, 2) ?? String(input);
  } catch {
    return String(input);
  }
}

/**
 * A request's text as it is (controls, bidi and blank-looking characters shown as escapes), and,
 * when it is longer than the card shows at once, how much there is: a command of `ls`, sixty
 * blank lines and `curl … | sh` must not pass for `ls`. The marker is decided by counts and, once
 * laid out, by the body's own heights (`needsMore`): whatever wraps below the fold is "more".
 */
function Body({ text, part }: { text: string; part: string }) {
  const { lines, chars } = textSize(text);
  const shown = visibleText(text);
  const body = useRef<HTMLPreElement>(null);
  const [overflows, setOverflows] = useState(false);
  useLayoutEffect(() => {
    const el = body.current;
    const measure = () => setOverflows(needsMore(el));
    measure();
    if (!el || typeof ResizeObserver === "undefined") return;
    const watch = new ResizeObserver(measure);
    watch.observe(el);
    return () => watch.disconnect();
  }, [shown]);
  const long = lines > SHOWN_LINES || chars > 2000 || overflows;
  return (
    <>
      <pre ref={body} className="approval__body" data-approval-part={part}>{shown}</pre>
      {(long || shown !== text) && (
        <div className="approval__more" data-approval-part="more" role="note">
          {lines > SHOWN_LINES
            ? `${lines} lines, ${chars} characters: scroll to read it all`
            : long
              ? `${chars} characters, more below: scroll to read it all`
              : `${chars} characters`}
          {shown !== text ? " · holds control, direction or invisible characters, shown as \\x… / \\u{…}" : ""}
        </div>
      )}
    </>
  );
}

/** What the request wants, in words and a `<pre>` of its text. */
function Subject({ subject }: { subject: SubjectView }) {
  switch (subject.kind) {
    case "command":
      return (
        <>
          <div className="approval__what">
            Run a command{subject.cwd ? <> in <code className="approval__cwd">{visibleText(subject.cwd)}</code></> : null}
            {subject.unsandboxed ? (
              <strong className="approval__outside" data-approval-part="outside">
                {" "}outside the sandbox
              </strong>
            ) : null}
          </div>
          <Body text={subject.command} part="command" />
        </>
      );
    case "file_change":
      return (
        <>
          <div className="approval__what">
            Change {subject.paths.length === 1 ? "a file" : `${subject.paths.length} files`}
          </div>
          <ul className="approval__paths" data-approval-part="paths">
            {subject.paths.map((p) => (
              <li key={p}>
                <code>{visibleText(p)}</code>
              </li>
            ))}
          </ul>
          {subject.diff && <Body text={subject.diff} part="diff" />}
        </>
      );
    case "tool":
      return (
        <>
          <div className="approval__what">
            Use the tool <code>{visibleText(subject.name)}</code>
          </div>
          <Body text={inputText(subject.input)} part="input" />
        </>
      );
    case "question":
      // Answered in its own card (QuestionCard).
      return null;
  }
}

function Card({ threadId, request }: { threadId: string; request: ApprovalView }) {
  const [busy, setBusy] = useState(false);
  const answer = (decision: ApprovalDecision) => {
    if (busy) return;
    setBusy(true);
    void answerApproval(threadId, request.id, decision).then(() => setBusy(false));
  };
  useEffect(() => markShown(request.id), [request.id]);
  return (
    <div
      className="approval"
      role="group"
      tabIndex={0}
      aria-label="Approval request"
      aria-busy={busy || undefined}
      data-approval-id={request.id}
      onKeyDown={(e) => {
        if (e.key === "Enter" && e.target === e.currentTarget && !e.shiftKey) {
          e.preventDefault();
          if (enterMayApprove(request.id)) answer("approve");
        }
      }}
    >
      <div className="approval__head">
        <span className="approval-dot" aria-hidden />
        <span className="approval__title">Waiting for your approval</span>
      </div>
      <Subject subject={request.subject} />
      {request.reason && (
        <div className="approval__reason" data-approval-part="reason">
          The harness says why: {visibleText(request.reason)}
        </div>
      )}
      {request.can_approve_for_session && request.session_rules.length > 0 && (
        <div className="approval__rules" data-approval-part="rules">
          <span>“Always this session” allows, until this thread’s session ends or you revoke it:</span>
          <ul>
            {request.session_rules.map((rule) => (
              <li key={rule}>{visibleText(rule)}</li>
            ))}
          </ul>
        </div>
      )}
      <div className="approval__actions">
        <button
          type="button"
          className="button button--small button--primary"
          data-action="approve"
          disabled={busy}
          title="Approve (Enter)"
          onClick={() => answer("approve")}
        >
          Approve
        </button>
        {request.can_approve_for_session && (
          <button
            type="button"
            className="button button--small"
            data-action="approve-for-session"
            disabled={busy}
            title="Approve, and allow what is listed above for the rest of this session (revocable in the header)"
            onClick={() => answer("approve_for_session")}
          >
            Always this session
          </button>
        )}
        <button
          type="button"
          className="button button--small"
          data-action="decline"
          disabled={busy}
          title="Decline; the turn goes on"
          onClick={() => answer("decline")}
        >
          Decline
        </button>
        <button
          type="button"
          className="button button--small button--danger"
          data-action="stop-turn"
          disabled={busy}
          title="Decline and stop the turn"
          onClick={() => answer("decline_and_stop")}
        >
          Stop turn
        </button>
      </div>
    </div>
  );
}

function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  return ["INPUT", "TEXTAREA", "SELECT", "BUTTON", "A"].includes(target.tagName) || target.closest("[role=dialog], .xterm") !== null;
}

/**
 * The thread's pending requests; Enter anywhere not taking text approves the oldest (unless it is
 * a question, or its card appeared less than ENTER_SETTLE_MS ago).
 */
export function Approvals({ threadId }: { threadId: string }) {
  const pending = useApp((s) => s.approvals[threadId] ?? NONE);
  // A question is answered in its card: Enter there, not anywhere.
  const first = pending[0]?.subject.kind === "question" ? undefined : pending[0]?.id;

  useEffect(() => {
    if (!first) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Enter" || e.shiftKey || e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
      if (typing(e.target) || (e.target instanceof HTMLElement && e.target.closest(".approval"))) return;
      e.preventDefault();
      // A card that has only just appeared is not approved by a keypress meant for something else.
      if (enterMayApprove(first)) void answerApproval(threadId, first, "approve");
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [threadId, first]);

  if (pending.length === 0) return null;
  return (
    <div className="approvals" aria-live="polite">
      {pending.map((r) =>
        r.subject.kind === "question" ? (
          <QuestionCard key={r.id} threadId={threadId} requestId={r.id} questions={r.subject.questions} />
        ) : (
          <Card key={r.id} threadId={threadId} request={r} />
        ),
      )}
    </div>
  );
}
