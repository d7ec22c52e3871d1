// Generic traversal of the parse tree: every object in it is a node with a `type`, so children are found
// by looking at fields, and no visitor needs updating when a node type is added. Iterative: the depth of a
// tree never costs stack.
import type { Node, NodeOfType, NodeType } from './ast.js';

/** Calls `fn` on each direct child of `node` (fields in order, arrays element by element). */
export function forEachChild(node: Node, fn: (child: Node) => void): void {
  for (const key in node) {
    if (key === 'location' || key === 'type') continue;
    visitValue((node as unknown as Record<string, unknown>)[key], fn);
  }
}

function visitValue(value: unknown, fn: (child: Node) => void): void {
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) visitValue(item, fn);
  } else if (typeof (value as { type?: unknown }).type === 'string') {
    fn(value as Node);
  }
}

/** The direct children of `node`, in order. */
export function childrenOf(node: Node): Node[] {
  const children: Node[] = [];
  forEachChild(node, (child) => children.push(child));
  return children;
}

/**
 * Visits `root` and every node below it, parents before children, in source order: subqueries, lambdas,
 * CTEs, the statement inside EXPLAIN / PREPARE, the query of CREATE ... AS and INSERT ... SELECT included.
 * Returning `false` from the visitor skips that node's children.
 */
export function walk(root: Node, visitor: (node: Node, parent: Node | undefined) => void | boolean): void {
  const stack: { node: Node; parent: Node | undefined }[] = [{ node: root, parent: undefined }];
  while (stack.length > 0) {
    const { node, parent } = stack.pop()!;
    if (visitor(node, parent) === false) continue;
    const children = childrenOf(node);
    for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i], parent: node });
  }
}

/** Every node of type `type` in the tree under (and including) `root`, in source order. */
export function findAll<T extends NodeType>(root: Node, type: T): NodeOfType<T>[] {
  const found: NodeOfType<T>[] = [];
  walk(root, (node) => {
    if (node.type === type) found.push(node as NodeOfType<T>);
  });
  return found;
}

/**
 * A copy of `node` with every sub-tree that `replace` answers for swapped (the tree is immutable; nodes it
 * does not answer for are copied with their children mapped). Recursive: a parsed tree's depth is bounded
 * by the parser (DEFAULT_MAX_DEPTH).
 */
export function mapTree<T>(node: T, replace: (n: Node) => Node | undefined): T {
  if (Array.isArray(node)) return node.map((n: unknown) => mapTree(n, replace)) as T;
  if (typeof node !== 'object' || node === null) return node;
  if (typeof (node as { type?: unknown }).type === 'string') {
    const swapped = replace(node as unknown as Node);
    if (swapped) return swapped as unknown as T;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = k === 'location' ? v : mapTree(v, replace);
  return out as T;
}
