// A question the harness asks the user (Claude's AskUserQuestion, Codex's requestUserInput, a Pi
// extension's dialog): each question's prompt as text (never markup), its options as choices,
// a text field where any answer is taken, Answer (Enter, once every question has an answer)
// and Dismiss.
import { useState } from "react";
import type { QuestionView } from "../bindings/QuestionView";
import { answerQuestion } from "../threads/approvals";

/** The answer to each question: the chosen option, or the typed text; null while unanswered. */
export function answersOf(
  questions: readonly QuestionView[],
  chosen: readonly (string | null)[],
  typed: readonly string[],
): (string | null)[] {
  return questions.map((q, i) => {
    const text = (typed[i] ?? "").trim();
    if (q.free_text && text !== "") return text;
    const option = chosen[i] ?? null;
    return option !== null && q.options.includes(option) ? option : null;
  });
}

/** Every question answered: the answers to send, else null. */
export function complete(answers: readonly (string | null)[]): string[] | null {
  return answers.every((a): a is string => a !== null) ? [...answers] : null;
}

export function QuestionCard(props: { threadId: string; requestId: string; questions: QuestionView[] }) {
  const { threadId, requestId, questions } = props;
  const [chosen, setChosen] = useState<(string | null)[]>(() => questions.map(() => null));
  const [typed, setTyped] = useState<string[]>(() => questions.map(() => ""));
  const [busy, setBusy] = useState(false);
  const ready = complete(answersOf(questions, chosen, typed));

  const send = (answers: string[] | null) => {
    if (busy) return;
    setBusy(true);
    void answerQuestion(threadId, requestId, answers).then(() => setBusy(false));
  };
  const choose = (i: number, option: string) => {
    setChosen((c) => c.map((v, j) => (j === i ? option : v)));
    // A chosen option replaces what was typed for that question.
    setTyped((t) => t.map((v, j) => (j === i ? "" : v)));
  };

  return (
    <div
      className="approval approval--question"
      role="group"
      tabIndex={0}
      aria-label="Question"
      aria-busy={busy || undefined}
      data-approval-id={requestId}
      data-question-ready={ready ? "true" : undefined}
      onKeyDown={(e) => {
        if (e.key !== "Enter" || e.shiftKey || e.nativeEvent.isComposing) return;
        // A focused button answers by its own click.
        if (e.target instanceof HTMLButtonElement) return;
        e.preventDefault();
        if (ready) send(ready);
      }}
    >
      <div className="approval__head">
        <span className="approval-dot" aria-hidden />
        <span className="approval__title">{questions.length === 1 ? "A question for you" : "Questions for you"}</span>
      </div>
      {questions.map((q, i) => (
        <fieldset key={i} className="question" data-question-index={i}>
          {q.header && <legend className="question__header">{q.header}</legend>}
          <p className="question__prompt" data-approval-part="prompt">
            {q.prompt}
          </p>
          {q.options.length > 0 && (
            <div className="question__options" role="radiogroup" aria-label={q.header ?? q.prompt}>
              {q.options.map((option) => (
                <label key={option} className="question__option" data-checked={chosen[i] === option && !typed[i]?.trim() ? "true" : undefined}>
                  <input
                    type="radio"
                    name={`${requestId}-${i}`}
                    value={option}
                    data-option={option}
                    disabled={busy}
                    checked={chosen[i] === option && !typed[i]?.trim()}
                    onChange={() => choose(i, option)}
                  />
                  <span>{option}</span>
                </label>
              ))}
            </div>
          )}
          {q.free_text && (
            <input
              className="input input--small question__text"
              data-field="answer"
              placeholder={q.options.length > 0 ? "Or type an answer" : "Your answer"}
              aria-label={q.options.length > 0 ? "Another answer" : "Answer"}
              disabled={busy}
              value={typed[i] ?? ""}
              onChange={(e) => setTyped((t) => t.map((v, j) => (j === i ? e.target.value : v)))}
            />
          )}
        </fieldset>
      ))}
      <div className="approval__actions">
        <button
          type="button"
          className="button button--small button--primary"
          data-action="answer"
          disabled={busy || !ready}
          title={ready ? "Answer (Enter)" : "Answer every question first"}
          onClick={() => ready && send(ready)}
        >
          Answer
        </button>
        <button
          type="button"
          className="button button--small"
          data-action="dismiss"
          disabled={busy}
          title="Dismiss the question without an answer"
          onClick={() => send(null)}
        >
          Dismiss
        </button>
      </div>
    </div>
  );
}
