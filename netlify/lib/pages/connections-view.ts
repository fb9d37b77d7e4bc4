// What the console's connection doctor answers (GET …/connections and POST …/mcp-check): built
// by the `account` endpoint from the connection log and the MCP check, shown by
// site/scripts/account-connections.ts (always as text). The words are the server's.

/** One step of one attempt, in plain words. */
export interface ConnectionStepView {
  at: number;
  /** The step's name: document, consent, approved, denied, code, profile, refresh, resource, request. */
  step: string;
  ok: boolean;
  /** What happened, in a sentence. */
  says: string;
  /** The OAuth error (or the resource's refusal reason) when there is one. */
  error?: string;
  /** What to do about it, where a fix is known (a step that failed). */
  fix?: string;
  /** What comes next, or what to check (a step that did not fail: no fix is needed). */
  note?: string;
}

export interface ConnectionAttemptView {
  startedAt: number;
  /** Where the attempt ended: its last step. */
  endedAt: string;
  ok: boolean;
  /** How far it went, in words ("Stopped at the token endpoint"; "Nobody signed in: …"). */
  says: string;
  /** Whether a credential or session took part (the owner approved, a code or token was used);
   * false: anyone who has the app's sign-in link could have made it. */
  signedIn: boolean;
  steps: ConnectionStepView[];
}

export interface ConnectionClientView {
  /** The client_id, cut to 100 characters. */
  clientId: string;
  /** Whether the owner has approved this client at least once. */
  approved: boolean;
  lastAt: number;
  attempts: ConnectionAttemptView[];
}

export interface ConnectionsView {
  clients: ConnectionClientView[];
}

/** One finding of the MCP server check. */
export interface McpFindingView {
  ok: boolean;
  says: string;
  fix?: string;
}

export interface McpCheckView {
  url: string;
  /** True when no finding is a problem. */
  ok: boolean;
  findings: McpFindingView[];
}
