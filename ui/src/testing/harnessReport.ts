// A harness report for tests: found at /bin/<name>, ready, with the install words of the real
// reports.
import type { HarnessKind } from "../bindings/HarnessKind";
import type { HarnessReport } from "../bindings/HarnessReport";

const NPM: Record<string, string> = {
  claude: "npm install -g @anthropic-ai/claude-code",
  codex: "npm install -g @openai/codex",
  pi: "npm install -g @earendil-works/pi-coding-agent",
};
const SIGN_IN: Record<string, string> = { claude: "claude auth login", codex: "codex login", pi: "pi" };

/** The fields the first-run view added to a report. */
export function setupFields(name: HarnessKind): Pick<HarnessReport, "sign_in" | "next_step" | "install"> {
  return {
    sign_in: "signed_in",
    next_step: null,
    install: {
      commands: [{ label: "npm", command: NPM[name] ?? `npm install -g ${name}`, needs: null }],
      page: `https://example.org/${name}`,
      sign_in_command: SIGN_IN[name] ?? name,
    },
  };
}

export function harnessReport(name: HarnessKind, over: Partial<HarnessReport> = {}): HarnessReport {
  return {
    name,
    path: `/bin/${name}`,
    version: "1.0.0",
    capabilities: null,
    error: null,
    found_by: "path",
    notes: [],
    support: null,
    permission_modes: [],
    sandboxes: [],
    ...setupFields(name),
    ...over,
  };
}

/** A harness that was not found. */
export function missingReport(name: HarnessKind): HarnessReport {
  return harnessReport(name, {
    path: null,
    version: null,
    found_by: null,
    sign_in: null,
    error: `${name} not found`,
    next_step: `${name} is not installed: install it with \`${NPM[name]}\` in a terminal.`,
  });
}
