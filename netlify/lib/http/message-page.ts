import { ASSETS } from "../pages/paths.ts";

// The few pages a function renders itself (errors, setup, throttling). The sign-in page is
// static; these are plain text in a fixed frame, every value escaped.

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

export function renderMessagePage(page: MessagePage): string {
  const paragraphs = page.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join("\n      ");
  const link = page.link ? `<p><a class="button" href="${escapeHtml(page.link.href)}">${escapeHtml(page.link.text)}</a></p>` : "";
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
