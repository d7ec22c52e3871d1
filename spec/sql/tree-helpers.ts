// Helpers of the SQL front end specs.

/** The node without locations and undefined fields, for deep comparisons. */
export function bare(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(bare);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) if (key !== 'location' && value !== undefined) out[key] = bare(value);
  return out;
}
