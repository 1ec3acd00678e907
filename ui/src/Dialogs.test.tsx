import { describe, expect, it, vi } from "vitest";
import { IpcError } from "./ipc";
import type { HarnessReport } from "./bindings/HarnessReport";
import { changedHarnessPaths, checkHarnessPaths } from "./Dialogs";

vi.mock("./ipc", async () => {
  const { IpcError } = await vi.importActual<typeof import("./ipc")>("./ipc");
  return { IpcError, inApp: () => true, checkHarnessPath: vi.fn(), pickFolder: vi.fn() };
});

function report(over: Partial<HarnessReport>): HarnessReport {
  return {
    name: "claude",
    path: null,
    version: null,
    capabilities: null,
    error: null,
    found_by: "override",
    notes: [],
    support: null,
    ...over,
  };
}

describe("harness paths in Settings", () => {
  it("checks only the paths that were set or changed", () => {
    expect(
      changedHarnessPaths(
        { claude: "/opt/claude", codex: "C:\\npm\\codex.cmd", pi: null },
        { claude: " /opt/claude ", codex: "C:\\npm\\codex.exe", pi: "  " },
      ),
    ).toEqual([{ name: "codex", path: "C:\\npm\\codex.exe" }]);
    expect(changedHarnessPaths({ claude: "/a", codex: null, pi: null }, { claude: null, codex: null, pi: null })).toEqual(
      [],
    );
  });

  it("says in words why a path was refused", async () => {
    const check = vi.fn(async (harness: string, path: string) => {
      if (harness === "claude") return report({ path, version: "2.1.332" });
      if (harness === "codex") throw new IpcError("invalid_input", `${path} is Claude Code, not Codex`);
      throw new IpcError("harness_not_found", `found \`pi\` at ${path} but it is a shell script; on Windows use pi.cmd`);
    });
    const results = await checkHarnessPaths(
      [
        { name: "claude", path: "C:\\npm\\claude.cmd" },
        { name: "codex", path: "/usr/local/bin/claude" },
        { name: "pi", path: "C:\\npm\\pi" },
      ],
      check,
    );
    expect(results.claude).toEqual({ state: "ok", report: report({ path: "C:\\npm\\claude.cmd", version: "2.1.332" }) });
    expect(results.codex).toEqual({
      state: "error",
      code: "invalid_input",
      message: "/usr/local/bin/claude is Claude Code, not Codex",
    });
    expect(results.pi).toMatchObject({ state: "error", code: "harness_not_found" });
    expect(check).toHaveBeenCalledTimes(3);
  });
});
