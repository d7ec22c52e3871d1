// The client's position in a statement's result stream (Presto's lastToken / nextToken rule):
// the same token again returns the identical response, an older one is gone, anything else is unknown.

export type TokenCheck = 'repeat' | 'gone' | 'unknown' | 'next';

export class TokenCursor {
  private lastToken = -1;
  private lastBody: string | undefined;
  /** undefined once the final response has been sent: there is no next token. */
  private nextToken: number | undefined;

  constructor(firstToken: number) {
    this.nextToken = firstToken;
  }

  check(token: number): TokenCheck {
    if (token === this.lastToken && this.lastBody !== undefined) return 'repeat';
    if (token < this.lastToken) return 'gone';
    if (this.nextToken === undefined || token !== this.nextToken) return 'unknown';
    return 'next';
  }

  /** The body sent for `lastToken`, for an identical retry. */
  get repeatBody(): string | undefined {
    return this.lastBody;
  }

  /** The token the next response's nextUri carries. */
  get upcoming(): number | undefined {
    return this.nextToken;
  }

  /** Record the response sent for `token`; `final` closes the stream. */
  record(token: number, body: string, final: boolean): void {
    this.lastToken = token;
    this.lastBody = body;
    this.nextToken = final ? undefined : token + 1;
  }

  /** Forget the cached body (memory) while keeping the token rules. */
  dropBody(): void {
    this.lastBody = undefined;
  }
}
