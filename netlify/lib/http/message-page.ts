// The few pages a function renders itself (errors, setup, throttling). The sign-in page is
// static; these are plain text in a fixed frame, every value escaped. What a person reads for
// each refusal is here too (`refusalPage`): the refusals themselves are data (errors.ts).
import {
  AnsweredError,
  SetupIncomplete,
  SignInAlreadyAnswered,
  TemporarilyUnavailable,
  TooManyAttempts,
  UnusableSignInRequest,
  UntrustedRedirect,
} from "../errors.ts";
import { ASSETS } from "../pages/paths.ts";
import { REQUEST_PROBLEMS, START_AGAIN } from "../pages/request-problems.ts";

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface MessagePage {
  title: string;
  /** Plain text paragraphs; escaped here. */
  paragraphs: string[];
  /** An optional link back, e.g. to the sign-in page; the href is escaped too. */
  link?: { href: string; text: string };
}

/** The title and paragraphs a person reads for a refusal shown on a page. */
function refusalWords(error: AnsweredError): { title: string; paragraphs: string[] } {
  if (error instanceof UntrustedRedirect)
    return {
      title: error.heading,
      paragraphs: [error.description, "For your safety you were not sent back to the app."],
    };
  if (error instanceof UnusableSignInRequest)
    return {
      title: REQUEST_PROBLEMS[error.problem].title,
      paragraphs: [REQUEST_PROBLEMS[error.problem].said, START_AGAIN],
    };
  if (error instanceof SignInAlreadyAnswered) {
    return {
      title: "You already approved this sign-in",
      paragraphs: [
        error.description,
        "Go back to the app: you are probably signed in there. If you are not, start the sign-in again from the app.",
      ],
    };
  }
  if (error instanceof TemporarilyUnavailable)
    return {
      title: "Something went wrong",
      paragraphs: [`${error.what}. No sign-in was completed; please try again in a moment.`],
    };
  if (error instanceof TooManyAttempts) return { title: "Too many attempts", paragraphs: [error.description] };
  if (error instanceof SetupIncomplete) {
    const where = error.development
      ? "This IndieAuth server is running, but its environment variables are not complete yet. Set them in .env (or in your shell), then restart npm start:"
      : "This IndieAuth server is deployed, but its environment variables are not complete yet. Set them in Netlify (Site configuration, Environment variables), then redeploy:";
    return {
      title: "Almost there: finish the setup",
      paragraphs: [where, ...error.problems.map((p) => `${p.message}. ${p.fix}.`)],
    };
  }
  return { title: "Request refused", paragraphs: [error.description] };
}

/** The page that shows a refusal, with a note after its words (e.g. why it was not redirected). */
export function refusalPage(error: AnsweredError, note?: string): MessagePage {
  const { title, paragraphs } = refusalWords(error);
  return { title, paragraphs: note ? [...paragraphs, note] : paragraphs, ...(error.link ? { link: error.link } : {}) };
}

export function renderMessagePage(page: MessagePage): string {
  const paragraphs = page.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join("\n      ");
  const link = page.link
    ? `<p><a class="button" href="${escapeHtml(page.link.href)}">${escapeHtml(page.link.text)}</a></p>`
    : "";
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="color-scheme" content="light dark">
    <title>${escapeHtml(page.title)}</title>
    <link rel="icon" href="${ASSETS}/icon.svg" type="image/svg+xml">
    <link rel="stylesheet" href="${ASSETS}/site.css">
  </head>
  <body>
    <main class="card" role="main">
      <h1>${escapeHtml(page.title)}</h1>
      ${paragraphs}
      ${link}
    </main>
  </body>
</html>
`;
}
