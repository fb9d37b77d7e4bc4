// What `npx netlify-indieauth dev` passes on of netlify-cli's output. netlify-cli says some things
// that are harmless here and read like failures to someone trying the server for the first time:
// "Error: Unable to open browser" (in a container, even with BROWSER=none), "fetch failed" (its
// list of plugins, offline), "Building project for production" (the build is the development
// context), and to run `netlify serve` again, or without the flag that keeps it from downloading
// Deno. Those lines are left out or said in this command's words; everything else passes as it is.

const ANSI = /\x1b\[[0-9;]*m/g;
const RULE = /^-{10,}$/;

/** netlify-cli's own lines, reworded for this command (the prefix it printed is kept). */
const REWORDED: [said: RegExp, instead: string][] = [
  [/Building project for production$/, "Building the blog and the server (development context)"],
  [
    /Changes will not be hot-reloaded/,
    "Changes are not picked up while it runs: stop it (Ctrl+C) and run npx netlify-indieauth dev again",
  ],
  [
    /Edge functions are disabled\. Run without/,
    "Edge functions do not run in this local trial (the IndieAuth server needs none)",
  ],
];

/** Lines that say nothing useful here: an environment variable of the shell's own (LANG) kept. */
const DROPPED = [/Ignored general context env var:/];

export interface OutputFilter {
  /** The lines to print for one line netlify-cli printed (none, it, or a reworded one). */
  line(text: string): string[];
  /** What is held back, at the end of the output. */
  end(): string[];
}

/** One filter per output stream: it holds a line back while the next decides what it was. */
export function serveOutputFilter(): OutputFilter {
  let held: string | undefined;
  let inBrowserBlock = false;
  let afterPluginListWarning = false;

  const judge = (text: string): string[] => {
    const plain = text.replace(ANSI, "").trim();
    if (inBrowserBlock) {
      if (RULE.test(plain)) inBrowserBlock = false;
      return [];
    }
    if (afterPluginListWarning) {
      afterPluginListWarning = false;
      if (plain === "fetch failed") return [];
    }
    // Offline, netlify-cli cannot fetch its list of plugins; the plugin comes from the blog's node_modules.
    if (plain.startsWith("Warning: could not fetch latest plugins list")) {
      afterPluginListWarning = true;
      return [];
    }
    if (DROPPED.some((pattern) => pattern.test(plain))) return [];
    for (const [said, instead] of REWORDED) {
      if (said.test(plain)) return [`${/^[^\w\s]+\s/.exec(plain)?.[0] ?? ""}${instead}`];
    }
    return [text];
  };

  return {
    line(text) {
      const plain = text.replace(ANSI, "").trim();
      if (held !== undefined) {
        const rule = held;
        held = undefined;
        // netlify-cli frames its failure to open a browser (the address is printed once ready anyway).
        if (plain.startsWith("Error: Unable to open browser")) {
          inBrowserBlock = true;
          return [];
        }
        return [rule, ...this.line(text)];
      }
      if (!inBrowserBlock && RULE.test(plain)) {
        held = text;
        return [];
      }
      return judge(text);
    },
    end() {
      const rest = held === undefined ? [] : [held];
      held = undefined;
      return rest;
    },
  };
}

/** Passes `from` to `to` line by line through a filter. */
export function pipeFiltered(from: NodeJS.ReadableStream, to: NodeJS.WritableStream): void {
  const filter = serveOutputFilter();
  let partial = "";
  from.setEncoding("utf8");
  from.on("data", (chunk: string) => {
    const lines = (partial + chunk).split("\n");
    partial = lines.pop()!;
    const out = lines.flatMap((line) => filter.line(line));
    if (out.length > 0) to.write(`${out.join("\n")}\n`);
  });
  from.on("end", () => {
    const out = [...(partial ? filter.line(partial) : []), ...filter.end()];
    if (out.length > 0) to.write(`${out.join("\n")}\n`);
  });
}
