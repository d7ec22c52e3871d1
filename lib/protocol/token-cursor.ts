// The client's position in a statement's result stream (Presto's lastToken / nextToken rule):
// the same token again returns the identical response, an older one is gone, anything else is unknown.

export type TokenCheck = 'repeat' | 'gone' | 'unknown' | 'next';

/** A statement response as sent: its body and the session-change headers that went with it. */
export interface SentResponse {
  body: string | readonly Buffer[];
  headers: [string, string][];
}

export class TokenCursor {
  private lastToken = -1;
  private lastResponse: SentResponse | undefined;
  /** undefined once the final response has been sent: there is no next token. */
  private nextToken: number | undefined;

  constructor(firstToken: number) {
    this.nextToken = firstToken;
  }

  check(token: number): TokenCheck {
    if (token === this.lastToken && this.lastResponse !== undefined) return 'repeat';
    if (token < this.lastToken) return 'gone';
    if (this.nextToken === undefined || token !== this.nextToken) return 'unknown';
    return 'next';
  }

  /** The response sent for `lastToken` (body and headers), for an identical retry. */
  get repeatResponse(): SentResponse | undefined {
    return this.lastResponse;
  }

  /** The token the next response's nextUri carries. */
  get upcoming(): number | undefined {
    return this.nextToken;
  }

  /** Record the response sent for `token`; `final` closes the stream. */
  record(token: number, response: SentResponse, final: boolean): void {
    this.lastToken = token;
    this.lastResponse = response;
    this.nextToken = final ? undefined : token + 1;
  }
}
