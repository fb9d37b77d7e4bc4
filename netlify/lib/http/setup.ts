// What endpoints answer while the environment is incomplete: JSON endpoints a server_error
// naming the variable, pages a setup page. Never a crash.
import type { ConfigProblem } from "../platform/config.ts";
import { describeProblems } from "../platform/config.ts";
import { json, page } from "./responses.ts";

export function setupJson(problems: ConfigProblem[]): Response {
  return json({ error: "server_error", error_description: describeProblems(problems) }, 500);
}

export function setupPage(problems: ConfigProblem[]): Response {
  return page(
    {
      title: "Almost there: finish the setup",
      paragraphs: [
        "This IndieAuth server is deployed but its environment variables are not complete yet. Set them in Netlify (Site configuration, Environment variables) or in .env for local development, then redeploy:",
        ...problems.map((p) => `${p.variable}: ${p.message}`),
      ],
    },
    500,
  );
}
