// /ui/login.html: the form posts to /ui/login (a plain form, no script needed to log in). This script
// only carries the page the user came from (the query string, as Trino's login page reads it), hides
// the password field where the server takes none (GET /ui/auth/info: insecure login), and says so when
// the server sent the browser back after a refused attempt (its 303 ends in #failed).
const form = document.getElementById('login-form');
const redirect = document.getElementById('redirect-path') as HTMLInputElement | null;
if (form && redirect) {
  redirect.value = window.location.search.slice(1);
  if (window.location.hash === '#failed') {
    const banner = document.getElementById('error-banner');
    if (banner) {
      banner.textContent = 'Login failed: unknown user name or wrong password.';
      banner.hidden = false;
    }
  }
  void fetch('auth/info', { credentials: 'same-origin', headers: { Accept: 'application/json' } })
    .then((res) => (res.ok ? (res.json() as Promise<{ passwordAllowed?: unknown }>) : undefined))
    .then((info) => {
      if (info?.passwordAllowed !== false) return;
      for (const id of ['password', 'password-label']) document.getElementById(id)?.setAttribute('hidden', '');
    })
    .catch(() => undefined);
}
