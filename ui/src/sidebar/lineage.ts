// Threads as the sidebar shows them: grouped by project (cwd), each group a forest of lineage
// trees (a fork under its source). Pure functions, unit-tested.
import type { ThreadView } from "../bindings/ThreadView";

export interface TreeNode {
  thread: ThreadView;
  children: TreeNode[];
  /** Latest activity in this subtree (ms). */
  latest: number;
}

export interface Project {
  cwd: string;
  name: string;
  roots: TreeNode[];
  latest: number;
  count: number;
}

export interface FlatNode {
  thread: ThreadView;
  depth: number;
  /** Per ancestor level (and its own), whether that level's node is the last sibling. */
  lastAt: boolean[];
  hasChildren: boolean;
}

export function projectName(cwd: string): string {
  const parts = cwd.split(/[\\/]/).filter(Boolean);
  return parts[parts.length - 1] ?? cwd;
}

export function buildProjects(threads: ThreadView[]): Project[] {
  const visible = threads.filter((t) => t.state !== "archived" && t.state !== "creating");
  // A fork in a folder of its own (a worktree) stays in its lineage root's project.
  const visibleById = new Map(visible.map((t) => [t.id, t]));
  const projectOf = (t: ThreadView): string => {
    let node = t;
    const seen = new Set<string>();
    while (node.fork && !seen.has(node.id)) {
      seen.add(node.id);
      const parent = visibleById.get(node.fork.source_thread);
      if (!parent) break;
      node = parent;
    }
    return node.cwd;
  };
  const byCwd = new Map<string, ThreadView[]>();
  for (const t of visible) {
    const key = projectOf(t);
    const list = byCwd.get(key);
    if (list) list.push(t);
    else byCwd.set(key, [t]);
  }
  const projects: Project[] = [];
  for (const [cwd, list] of byCwd) {
    const ids = new Set(list.map((t) => t.id));
    const nodes = new Map<string, TreeNode>(
      list.map((t) => [t.id, { thread: t, children: [], latest: t.updated_at }]),
    );
    const roots: TreeNode[] = [];
    for (const t of list) {
      const node = nodes.get(t.id);
      if (!node) continue;
      const parent = t.fork && ids.has(t.fork.source_thread) ? nodes.get(t.fork.source_thread) : undefined;
      if (parent && !createsCycle(t, nodes)) parent.children.push(node);
      else roots.push(node);
    }
    const settle = (node: TreeNode): number => {
      node.children.sort((a, b) => a.thread.created_at - b.thread.created_at);
      node.latest = Math.max(node.thread.updated_at, ...node.children.map(settle));
      return node.latest;
    };
    roots.forEach(settle);
    roots.sort((a, b) => b.latest - a.latest);
    projects.push({
      cwd,
      name: projectName(cwd),
      roots,
      latest: Math.max(...roots.map((r) => r.latest)),
      count: list.length,
    });
  }
  projects.sort((a, b) => b.latest - a.latest);
  return projects;
}

function createsCycle(thread: ThreadView, nodes: Map<string, TreeNode>): boolean {
  const seen = new Set<string>([thread.id]);
  let cur = thread.fork?.source_thread;
  while (cur) {
    if (seen.has(cur)) return true;
    seen.add(cur);
    cur = nodes.get(cur)?.thread.fork?.source_thread;
  }
  return false;
}

/** Depth-first rows of a project's trees, for rendering with tree lines. */
export function flatten(roots: TreeNode[]): FlatNode[] {
  const out: FlatNode[] = [];
  const walk = (node: TreeNode, depth: number, lastAt: boolean[]) => {
    out.push({ thread: node.thread, depth, lastAt, hasChildren: node.children.length > 0 });
    node.children.forEach((child, i) =>
      walk(child, depth + 1, [...lastAt, i === node.children.length - 1]),
    );
  };
  roots.forEach((root, i) => walk(root, 0, [i === roots.length - 1]));
  return out;
}
