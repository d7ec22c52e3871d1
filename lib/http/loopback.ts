// Whether a request came from this machine: the socket's peer address, never a header (a client can
// write any X-Forwarded-For it likes).

/** The peer is this machine: 127.0.0.0/8, ::1, or either mapped into IPv6. */
export function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  const lower = address.toLowerCase();
  if (lower === '::1' || lower === '0:0:0:0:0:0:0:1') return true;
  const v4 = lower.startsWith('::ffff:') ? lower.slice(7) : lower;
  const parts = v4.split('.');
  return parts.length === 4 && parts[0] === '127' && parts.every((p) => p !== '' && p.length <= 3 && [...p].every((c) => c >= '0' && c <= '9') && Number(p) <= 255);
}
