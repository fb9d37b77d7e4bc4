// The two roots of every refusal this server answers (errors.ts has the classes, one per
// OAuth error): AnsweredError knows its code, status, headers and how a person reads it;
// OAuthError is one that may travel back to the client's redirect_uri once that URI is verified.

/** The body of every refusal (JSON, or form-encoded for a client that asks for that). */
export interface ErrorBody {
  /** Both absent only where the standard wants no error information: a request without any credential. */
  error?: string;
  error_description?: string;
  [extra: string]: unknown;
}

/** A link on the page that shows an error to a person (e.g. back to the sign-in page). */
interface PageLink {
  href: string;
  text: string;
}

export abstract class AnsweredError extends Error {
  abstract readonly error: string;
  abstract readonly status: number;
  /** May go back to the client's redirect_uri once that URI is verified. */
  readonly toClient: boolean = false;
  /** The heading when a person sees it on a page. */
  readonly title: string = "Request refused";
  /** An optional way on from the page that shows it. */
  link?: PageLink;

  constructor(readonly description: string) {
    super(description);
  }

  body(): ErrorBody {
    return { error: this.error, error_description: this.description };
  }

  headers(): Record<string, string> {
    return {};
  }

  /** What a person reads on the page. */
  paragraphs(): string[] {
    return [this.description];
  }

  /** Adds a way on from the page that shows it. */
  withLink(link: PageLink): this {
    this.link = link;
    return this;
  }
}

export abstract class OAuthError extends AnsweredError {
  override readonly toClient: boolean = true;
}
