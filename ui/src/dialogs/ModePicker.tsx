// The permission-mode choice of one harness (New thread, Settings, the conversation header):
// Claude's modes as one choice, Codex's approval policy and sandbox as two, Pi a plain sentence.
// The words come from the harness's report; each is explained in one line.
import type { HarnessReport } from "../bindings/HarnessReport";
import { choiceLabel, choicesOf, explain, type ModeChoice } from "../permissions";

export const PI_NOTE = "Pi runs its tools without asking";

function WordSelect(props: {
  harness: string;
  field: "mode" | "sandbox";
  label: string;
  words: string[];
  value: string | null;
  compact?: boolean;
  disabled?: boolean;
  onChange: (value: string | null) => void;
}) {
  const { harness, words, value } = props;
  return (
    <label className={props.compact ? "mode-picker__item mode-picker__item--compact" : "mode-picker__item"}>
      <span className="field__label">{props.label}</span>
      <select
        className="input input--small"
        data-field={props.field}
        data-harness={harness}
        value={value ?? ""}
        disabled={props.disabled}
        title={explain(harness, value)}
        onChange={(e) => props.onChange(e.target.value === "" ? null : e.target.value)}
      >
        <option value="">{props.compact ? "(default)" : "The harness's default"}</option>
        {words.map((w) => (
          <option key={w} value={w}>
            {props.compact ? w : choiceLabel(harness, w)}
          </option>
        ))}
      </select>
      {!props.compact && (
        <span className="mode-picker__why" data-explains={props.field}>
          {explain(harness, value)}
        </span>
      )}
    </label>
  );
}

/**
 * The sentence shown instead of a choice when the harness has no mode to choose (Pi), or `null`
 * when there is a choice (or nothing shows yet: a report not in, but for Pi, known without it).
 */
export function modeNote(harness: string, report: HarnessReport | undefined): string | null {
  if (report === undefined && harness !== "pi") return null;
  const { modes, sandboxes } = choicesOf(report);
  if (modes.length > 0 || sandboxes.length > 0) return null;
  return harness === "pi" ? PI_NOTE : "No permission modes";
}

/** The mode choice for `harness`; nothing to choose for Pi (a sentence says why). */
export function ModePicker(props: {
  harness: string;
  report: HarnessReport | undefined;
  value: ModeChoice;
  onChange: (choice: ModeChoice) => void;
  compact?: boolean;
  disabled?: boolean;
}) {
  const { harness, value, onChange } = props;
  const { modes, sandboxes } = choicesOf(props.report);
  if (props.report === undefined && harness !== "pi") return null;
  const note = modeNote(harness, props.report);
  if (note !== null) {
    return (
      <p className="mode-picker mode-picker--none" data-mode-picker={harness}>
        {note}
      </p>
    );
  }
  return (
    <div className={props.compact ? "mode-picker mode-picker--compact" : "mode-picker"} data-mode-picker={harness}>
      {modes.length > 0 && (
        <WordSelect
          harness={harness}
          field="mode"
          label={sandboxes.length > 0 ? "Approval policy" : "Mode"}
          words={modes}
          value={value.mode}
          compact={props.compact}
          disabled={props.disabled}
          onChange={(mode) => onChange({ ...value, mode })}
        />
      )}
      {sandboxes.length > 0 && (
        <WordSelect
          harness={harness}
          field="sandbox"
          label="Sandbox"
          words={sandboxes}
          value={value.sandbox}
          compact={props.compact}
          disabled={props.disabled}
          onChange={(sandbox) => onChange({ ...value, sandbox })}
        />
      )}
    </div>
  );
}
