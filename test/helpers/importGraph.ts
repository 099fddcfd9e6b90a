import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { Glob } from "bun";

/**
 * The project's folder graph, read from every relative import (type-only ones too: a type import
 * couples two folders as much as a value import does). A node is a folder one level under a top
 * folder (`shared/papers`, `api/routes`); a file directly in a top folder is its own node
 * (`api/app.ts`), and `search-index/` is one node.
 */
export interface ImportEdge {
  from: string;
  to: string;
  file: string;
  target: string;
}

const IMPORT =
  /(?:import|export)\s[^"';]*?from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)|import\s+["']([^"']+)["']/g;

const FLAT = new Set(["search-index"]);

export function nodeOf(path: string): string {
  const parts = path.split("/");
  if (FLAT.has(parts[0] as string) || parts.length === 1) return parts[0] as string;
  return parts.length === 2 ? path : `${parts[0]}/${parts[1]}`;
}

/** Every import between two different nodes under `root`, for the given top folders. */
export function importEdges(root: string, tops: readonly string[]): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const top of tops) {
    for (const file of new Glob(`${top}/**/*.ts`).scanSync(root)) {
      const text = readFileSync(join(root, file), "utf8");
      for (const match of text.matchAll(IMPORT)) {
        const spec = match[1] ?? match[2] ?? match[3];
        if (!spec?.startsWith(".")) continue;
        const target = resolveFile(root, relative(".", normalize(join(dirname(file), spec))));
        const from = nodeOf(file);
        const to = nodeOf(target);
        if (from !== to) edges.push({ from, to, file, target });
      }
    }
  }
  return edges;
}

/** The same imports between top folders (`api`, `shared`, `search-index`, …): the README layout's graph. */
export function topLevelEdges(edges: readonly ImportEdge[]): ImportEdge[] {
  const topOf = (path: string) => path.split("/")[0] as string;
  return edges
    .map((edge) => ({ ...edge, from: topOf(edge.file), to: topOf(edge.target) }))
    .filter((edge) => edge.from !== edge.to);
}

/**
 * Imports from the files of top folder `top` to any other project file, as `file → target` lines.
 * An npm package is not a relative import, so it is never listed.
 */
export function importsLeaving(edges: readonly ImportEdge[], top: string): string[] {
  return topLevelEdges(edges)
    .filter((edge) => edge.from === top)
    .map((edge) => `${top} → ${nodeOf(edge.target)}: ${edge.file} → ${edge.target}`);
}

/** The file a specifier names: as written, or with `.ts` or `/index.ts` added. */
function resolveFile(root: string, path: string): string {
  for (const candidate of [path, `${path}.ts`, `${path}/index.ts`]) {
    const full = join(root, candidate);
    if (existsSync(full) && statSync(full).isFile()) return candidate;
  }
  return path;
}

/**
 * Cycles between nodes (strongly connected components of more than one node), each reported with
 * the imports that close it, as `file → target` lines.
 */
export function folderCycles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    if (!next.has(from)) next.set(from, new Set());
    next.get(from)?.add(to);
  }
  // Tarjan's algorithm, iterative enough for a graph of a few dozen nodes.
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string) => {
    order.set(node, index);
    low.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node) ?? []) {
      if (!order.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node) as number, low.get(to) as number));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node) as number, order.get(to) as number));
      }
    }
    if (low.get(node) === order.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const node of next.keys()) if (!order.has(node)) visit(node);
  return components.map((component) =>
    edges
      .filter((edge) => component.includes(edge.from) && component.includes(edge.to))
      .map((edge) => `${edge.from} ↔ ${edge.to}: ${edge.file} → ${edge.target}`),
  );
}

/**
 * Imports that point upwards: `layers` lists node groups from the bottom; a node may import its
 * own layer or lower ones. Nodes not listed are not checked here (the cycle check covers them).
 */
export function upwardImports(edges: readonly ImportEdge[], layers: readonly (readonly string[])[]): string[] {
  const rank = new Map<string, number>();
  layers.forEach((layer, i) => {
    for (const node of layer) rank.set(node, i);
  });
  return edges
    .filter((edge) => (rank.get(edge.to) ?? -1) > (rank.get(edge.from) ?? Number.POSITIVE_INFINITY))
    .map((edge) => `${edge.from} → ${edge.to}: ${edge.file} → ${edge.target}`);
}

/** A repository module: SQL for one domain's tables (`repository.ts`, `accountRepository.ts`, …). */
const REPOSITORY = /(^|\/)(repository|[A-Za-z]+Repository)\.ts$/;

/**
 * Imports of another domain's repository: a repository file imported from outside its node. A
 * domain's tables are read and written through its verbs, so its rules (ownership, consent, what a
 * write also touches) live in one place. `allowed` maps a node to the nodes whose repositories it
 * may import.
 */
export function foreignRepositoryImports(
  edges: readonly ImportEdge[],
  allowed: Readonly<Record<string, readonly string[]>> = {},
): string[] {
  return edges
    .filter((edge) => REPOSITORY.test(edge.target) && !allowed[edge.from]?.includes(edge.to))
    .map((edge) => `${edge.from} → ${edge.to}: ${edge.file} → ${edge.target}`);
}
