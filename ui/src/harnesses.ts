// The harnesses' names as the UI writes them.
export const HARNESS_NAMES: Record<string, string> = {
  claude: "Claude Code",
  codex: "Codex",
  pi: "Pi",
};

export function harnessName(harness: string) {
  return HARNESS_NAMES[harness] ?? harness;
}
