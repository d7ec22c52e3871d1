// A JSON.parse failure told without the text it failed on: V8 quotes the start of the input
// (`Unexpected token 'x', "{"user": x…" is not valid JSON`), and a file's contents (rules, users' view
// SQL) have no place in a log line or an error message that reaches one.

/** V8's message, less any quoted input: its kind and position, when it gives one. */
export function jsonSyntaxProblem(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const quoted = ' is not valid JSON';
  if (!message.endsWith(quoted)) return message;
  // `<what was unexpected>, "<input>" is not valid JSON` (`, ..."<input>"` when V8 shortens it), or
  // `"<input>" is not valid JSON` alone.
  const cuts = [message.indexOf(', "'), message.indexOf(', ..."')].filter((i) => i > 0);
  return cuts.length > 0 ? `${message.slice(0, Math.min(...cuts))}: not valid JSON` : 'not valid JSON';
}
