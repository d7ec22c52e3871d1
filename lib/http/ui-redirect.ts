// Where the login form sends the browser after a successful login: the form's redirectPath, but only as a
// page of this server's web UI. Trino takes any URI there; an open redirect (https://evil.example/,
// //evil.example, /\evil.example, ...) would let a link to our login page forward to a phishing site.
// The path is parsed as a URL against our own origin (WHATWG URL: backslashes, tabs, dot segments and
// percent-encoded dots resolved as a browser resolves them) and only its path and query are kept.

export const UI_HOME = '/ui/';

/**
 * The Location for `redirectPath`: its path and query when they name a page under /ui/, else the UI's
 * home; a path on this server whatever the Host header said. Another origin's URL keeps only its path,
 * as Trino's older clients send the whole URL of this server's page.
 */
export function loginRedirect(redirectPath: string | undefined): string {
  if (redirectPath === undefined || redirectPath === '' || redirectPath.length > 8192) return UI_HOME;
  let url: URL;
  try {
    // A fixed base: relative paths resolve as under /ui/, and nothing of the request takes part.
    url = new URL(redirectPath, 'http://localhost/ui/');
  } catch {
    return UI_HOME;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return UI_HOME;
  const path = url.pathname;
  // The login resources themselves would only loop or log out.
  if (!path.startsWith(UI_HOME) || path.startsWith('/ui/login') || path.startsWith('/ui/logout') || path.startsWith('/ui/auth/')) return UI_HOME;
  // It starts with "/ui/", so never "//host"; URL has percent-encoded whatever a header cannot hold.
  return `${path}${url.search}`;
}
