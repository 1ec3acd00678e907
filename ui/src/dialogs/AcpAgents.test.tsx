import { fireEvent, render, waitFor } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";

vi.mock("../ipc", async () => import("../testing/ipcMock"));
import type { AgentReport } from "../bindings/AgentReport";
import * as ipc from "../ipc";
import { AcpAgentsSection, agentAbilities } from "./AcpAgents";

const m = vi.mocked(ipc);

const agent = (name: string, product: string, install: string | null) => ({
  name,
  product_name: product,
  program: name,
  args: ["acp"],
  env: [],
  bin_env: null,
  install,
});
const opencode: AgentReport = {
  agent: agent("opencode", "OpenCode", "npm install -g opencode-ai"),
  program: "/opt/opencode",
  probe: {
    name: "opencode",
    agent_name: "OpenCode",
    agent_version: "1.18.33",
    protocol_version: 1,
    load: true,
    fork: true,
    list: true,
    delete: false,
    images: true,
    auth_methods: ["opencode-login"],
    ms: 2100,
  },
  error: null,
};
const gemini: AgentReport = {
  agent: agent("gemini", "Gemini CLI", "npm install -g @google/gemini-cli"),
  program: "gemini",
  probe: null,
  error: { code: "harness_not_found", message: "gemini is not installed" },
};
const qwen: AgentReport = {
  agent: agent("qwen", "qwen", null),
  program: "qwen",
  probe: { ...opencode.probe!, name: "qwen", agent_name: null, agent_version: null, fork: false, list: false, auth_methods: [] },
  error: null,
};

describe("Settings ▸ Agents", () => {
  beforeEach(() => vi.clearAllMocks());

  it("says what each agent can do, or why it cannot be asked and how to install it", async () => {
    m.acpAgents.mockResolvedValueOnce([gemini, opencode]);
    const view = render(<AcpAgentsSection />);
    // Nothing is started until the user asks.
    expect(m.acpAgents).not.toHaveBeenCalled();
    fireEvent.click(view.container.querySelector('[data-action="agents-ask"]')!);
    await waitFor(() => expect(view.container.querySelectorAll("[data-agent]").length).toBe(2));
    const ready = view.container.querySelector('[data-agent="opencode"]')!;
    expect(ready.getAttribute("data-agent-state")).toBe("ready");
    expect(ready.textContent).toContain("OpenCode 1.18.33 · forks at every message");
    expect(ready.textContent).toContain("signs in with opencode-login");
    const missing = view.container.querySelector('[data-agent="gemini"]')!;
    expect(missing.textContent).toContain("gemini is not installed");
    expect(missing.textContent).toContain("npm install -g @google/gemini-cli");
    // Shipped agents are never removed.
    expect(view.container.querySelector('[data-action="remove-agent"]')).toBeNull();
  });

  it("adds an agent by its command line and removes an added one", async () => {
    m.acpAgents.mockResolvedValueOnce([opencode]).mockResolvedValueOnce([opencode, qwen]).mockResolvedValueOnce([opencode]);
    m.addAcpAgent.mockResolvedValueOnce(qwen.agent);
    const view = render(<AcpAgentsSection />);
    fireEvent.click(view.container.querySelector('[data-action="agents-ask"]')!);
    await waitFor(() => expect(view.container.querySelector('[data-agent="opencode"]')).not.toBeNull());
    fireEvent.click(view.container.querySelector('[data-action="add-agent"]')!);
    fireEvent.change(view.container.querySelector('[data-field="agent-name"]')!, { target: { value: " qwen " } });
    fireEvent.change(view.container.querySelector('[data-field="agent-command"]')!, { target: { value: "qwen --acp" } });
    fireEvent.keyDown(view.container.querySelector('[data-field="agent-command"]')!, { key: "Enter" });
    await waitFor(() => expect(m.addAcpAgent).toHaveBeenCalledWith("qwen", "qwen --acp"));
    await waitFor(() => expect(view.container.querySelector('[data-agent="qwen"]')).not.toBeNull());
    expect(view.container.querySelector('[data-agent="qwen"]')!.textContent).toContain("no session/fork");
    fireEvent.click(view.container.querySelector('[data-agent="qwen"] [data-action="remove-agent"]')!);
    await waitFor(() => expect(m.removeAcpAgent).toHaveBeenCalledWith("qwen"));
    await waitFor(() => expect(view.container.querySelector('[data-agent="qwen"]')).toBeNull());
  });

  it("shows a refusal in words and keeps the form", async () => {
    m.acpAgents.mockResolvedValue([opencode]);
    m.addAcpAgent.mockRejectedValueOnce(new Error("opencode is one of the agents Forkhost ships"));
    const view = render(<AcpAgentsSection />);
    fireEvent.click(view.container.querySelector('[data-action="agents-ask"]')!);
    await waitFor(() => expect(view.container.querySelector('[data-agent="opencode"]')).not.toBeNull());
    fireEvent.click(view.container.querySelector('[data-action="add-agent"]')!);
    fireEvent.change(view.container.querySelector('[data-field="agent-name"]')!, { target: { value: "opencode" } });
    fireEvent.change(view.container.querySelector('[data-field="agent-command"]')!, { target: { value: "x acp" } });
    fireEvent.click(view.container.querySelector('[data-action="add-agent-save"]')!);
    await waitFor(() => expect(view.container.querySelector("[data-agents-error]")?.textContent).toContain("ships"));
    expect(view.container.querySelector("[data-agent-form]")).not.toBeNull();
    expect(agentAbilities(gemini)).toEqual([]);
  });
});
