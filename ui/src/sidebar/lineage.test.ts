import { describe, expect, it } from "vitest";
import type { ThreadView } from "../bindings/ThreadView";
import { buildProjects, flatten, projectName } from "./lineage";

function thread(id: string, cwd: string, at: number, source?: string): ThreadView {
  return {
    id,
    harness: "claude",
    cwd,
    title: id,
    state: "ready",
    native: { session_id: null, path: null },
    fork: source ? { source_thread: source, source_turn: null, boundary: "after", source_harness: null, source_turn_number: null } : null,
    permissions: { mode: null, sandbox: null },
    revision: 1,
    created_at: at,
    updated_at: at,
  };
}

describe("sidebar lineage", () => {
  it("groups by project and nests forks under their source", () => {
    const threads = [
      thread("a", "/p/one", 1),
      thread("b", "/p/two", 5),
      thread("a1", "/p/one", 2, "a"),
      thread("a2", "/p/one", 3, "a"),
      thread("a1x", "/p/one", 4, "a1"),
      { ...thread("gone", "/p/one", 9), state: "archived" as const },
    ];
    const projects = buildProjects(threads);
    expect(projects.map((p) => p.name)).toEqual(["two", "one"]);
    const one = projects[1]!;
    expect(one.count).toBe(4);
    expect(flatten(one.roots).map((n) => [n.thread.id, n.depth])).toEqual([
      ["a", 0],
      ["a1", 1],
      ["a1x", 2],
      ["a2", 1],
    ]);
    expect(flatten(one.roots)[3]?.lastAt).toEqual([true, true]);
  });

  it("puts a fork whose source is elsewhere at the top level, and survives cycles", () => {
    const projects = buildProjects([
      thread("x", "/q", 1, "missing"),
      thread("c1", "/q", 2, "c2"),
      thread("c2", "/q", 3, "c1"),
    ]);
    expect(flatten(projects[0]!.roots).map((n) => n.thread.id).sort()).toEqual(["c1", "c2", "x"]);
    expect(projectName("/home/me/proj/")).toBe("proj");
  });
});
