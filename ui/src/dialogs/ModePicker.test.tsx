// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render } from "@testing-library/react";
import type { HarnessKind } from "../bindings/HarnessKind";
import type { HarnessReport } from "../bindings/HarnessReport";
import { ModePicker } from "./ModePicker";
import { setupFields } from "../testing/harnessReport";

afterEach(cleanup);

function report(name: HarnessKind, permission_modes: string[], sandboxes: string[] = []): HarnessReport {
  return {
    name,
    path: "/bin/x",
    version: "1",
    capabilities: null,
    error: null,
    found_by: "path",
    notes: [],
    support: null,
    permission_modes,
    sandboxes,
    ...setupFields("claude"),
  };
}

const none = { mode: null, sandbox: null };

describe("the mode picker", () => {
  it("offers Claude's modes, from its report, as one choice explained", () => {
    const onChange = vi.fn();
    const { container } = render(
      <ModePicker harness="claude" report={report("claude", ["default", "acceptEdits", "bypassPermissions"])} value={none} onChange={onChange} />,
    );
    const selects = container.querySelectorAll("select");
    expect(selects).toHaveLength(1);
    const options = Array.from(selects[0]!.options).map((o) => o.textContent);
    expect(options).toEqual([
      "The harness's default",
      "default — asks before edits and commands",
      "acceptEdits — edits files without asking, asks before commands",
      "bypassPermissions — runs everything without asking",
    ]);
    fireEvent.change(selects[0]!, { target: { value: "acceptEdits" } });
    expect(onChange).toHaveBeenCalledWith({ mode: "acceptEdits", sandbox: null });
  });

  it("offers Codex's approval policy and sandbox as two choices", () => {
    const onChange = vi.fn();
    const { container } = render(
      <ModePicker
        harness="codex"
        report={report("codex", ["untrusted", "on-request", "never"], ["read-only", "workspace-write", "danger-full-access"])}
        value={{ mode: "untrusted", sandbox: null }}
        onChange={onChange}
      />,
    );
    const policy = container.querySelector<HTMLSelectElement>('select[data-field="mode"]')!;
    const sandbox = container.querySelector<HTMLSelectElement>('select[data-field="sandbox"]')!;
    expect(policy.value).toBe("untrusted");
    expect(container.querySelector('[data-explains="mode"]')?.textContent).toBe(
      "asks before any command that is not read-only",
    );
    fireEvent.change(sandbox, { target: { value: "danger-full-access" } });
    expect(onChange).toHaveBeenCalledWith({ mode: "untrusted", sandbox: "danger-full-access" });
    fireEvent.change(policy, { target: { value: "" } });
    expect(onChange).toHaveBeenLastCalledWith({ mode: null, sandbox: null });
  });

  it("says plainly that Pi does not ask, with no control", () => {
    const { container } = render(<ModePicker harness="pi" report={report("pi", [])} value={none} onChange={() => {}} />);
    expect(container.querySelector("select")).toBeNull();
    expect(container.textContent).toBe("Pi runs its tools without asking");
  });
});
