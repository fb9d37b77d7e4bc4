// HTTP Link headers (RFC 8288): used by client discovery (rel=redirect_uri) and by the
// self-test of the owner's page (rel=indieauth-metadata and the legacy endpoints).

interface LinkValue {
  target: string;
  /** Parameter names lowercased; the first occurrence of a parameter wins (RFC 8288 3.3). */
  params: Map<string, string>;
}

/** A quoted-string (RFC 9110 5.6.4) starting exactly at `lastIndex`, its content still escaped. */
const QUOTED = /"((?:[^"\\]|\\[\s\S])*)"/y;

/** Parses one Link header field value: `<uri>; rel="a b"; title=x, <uri2>; rel=c`. Commas and
 * semicolons inside <...> or quoted strings do not split. Malformed pieces are skipped up to the
 * next link value rather than guessed at. */
export function parseLinkHeader(header: string): LinkValue[] {
  const links: LinkValue[] = [];
  let i = 0;
  const n = header.length;
  const skipSpace = (): void => {
    while (i < n && (header[i] === " " || header[i] === "\t")) i++;
  };
  // Error recovery: jump past the next comma that is not inside a quoted string.
  const skipToNextLink = (): void => {
    let quoted = false;
    for (; i < n; i++) {
      const c = header[i];
      if (quoted && c === "\\") i++;
      else if (c === '"') quoted = !quoted;
      else if (c === "," && !quoted) {
        i++;
        return;
      }
    }
  };

  while (i < n) {
    while (i < n && (header[i] === "," || header[i] === " " || header[i] === "\t")) i++;
    if (i >= n) break;
    if (header[i] !== "<") {
      skipToNextLink();
      continue;
    }
    const close = header.indexOf(">", i + 1);
    if (close === -1) break;
    const link: LinkValue = { target: header.slice(i + 1, close).trim(), params: new Map() };
    i = close + 1;

    let malformed = false;
    for (;;) {
      skipSpace();
      if (i >= n || header[i] === ",") break;
      if (header[i] !== ";") {
        malformed = true;
        break;
      }
      i++;
      skipSpace();
      const nameStart = i;
      while (i < n && !" \t=;,".includes(header[i]!)) i++;
      const name = header.slice(nameStart, i).toLowerCase();
      skipSpace();
      let value = "";
      if (header[i] === "=") {
        i++;
        skipSpace();
        if (header[i] === '"') {
          QUOTED.lastIndex = i;
          const quoted = QUOTED.exec(header);
          if (!quoted) {
            malformed = true;
            break;
          }
          value = quoted[1]!.replace(/\\([\s\S])/g, "$1");
          i = QUOTED.lastIndex;
        } else {
          const valueStart = i;
          while (i < n && !" \t;,".includes(header[i]!)) i++;
          value = header.slice(valueStart, i);
        }
      }
      if (name !== "" && !link.params.has(name)) link.params.set(name, value);
    }
    if (malformed) {
      skipToNextLink();
      continue;
    }
    links.push(link);
  }
  return links;
}

/** Targets of every Link header value whose rel (a space-separated list) holds `rel`. */
export function linkTargets(headers: string[], rel: string): string[] {
  const targets: string[] = [];
  for (const header of headers) {
    for (const link of parseLinkHeader(header)) {
      const rels = (link.params.get("rel") ?? "").toLowerCase().split(/[ \t]+/);
      if (rels.includes(rel)) targets.push(link.target);
    }
  }
  return targets;
}
