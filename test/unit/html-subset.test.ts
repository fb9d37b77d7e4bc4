// The part of a page the microformats parser is given (clients/html-subset.ts, html-scan.ts):
// on ordinary pages it reads exactly as the whole page does; what HTML hides (comments,
// scripts, templates, a tag cut off by the end of the page) stays hidden.
import { mf2 } from "microformats-parser";
import { describe, expect, it } from "vitest";
import { parseClientDocument } from "../../netlify/lib/clients/client-info.ts";
import { htmlSubset } from "../../netlify/lib/clients/html-subset.ts";
import { REAL_PAGES } from "../helpers/hostile-html.ts";

const BASE = "https://app.example.com/client/";
const WANTED = { rels: ["redirect_uri"], roots: ["h-app", "h-x-app"] };

interface Item {
  type?: string[];
  properties: Record<string, unknown[]>;
  children?: Item[];
}
function firstApp(items: Item[]): Item | undefined {
  for (const item of items) {
    if (item.type?.some((t) => t === "h-app" || t === "h-x-app")) return item;
    const nested = firstApp(item.children ?? []);
    if (nested) return nested;
  }
  return undefined;
}

/** What discovery reads of a page: the first h-app's name, url and logo, and the redirect URIs. */
function read(html: string) {
  const parsed = mf2(`${html}<span></span>`, { baseUrl: BASE });
  const app = firstApp(parsed.items);
  const pick = (p: string) => app?.properties[p]?.[0];
  return { name: pick("name"), url: pick("url"), logo: pick("logo"), redirects: parsed.rels.redirect_uri ?? [] };
}

const ORDINARY = {
  ...Object.fromEntries(Object.entries(REAL_PAGES).map(([name, page]) => [name, page.body])),
  "logo object with alt": `<div class="h-x-app"><img class="u-logo" src="https://cdn.example.com/logo.svg" alt="Logo of X"><span class="p-name">X App</span></div>`,
  "implied name, url and photo": `<a class="h-app" href="/app"><img src="/icon.png" alt="Implied App"></a>`,
  "nested in an h-card": `<div class="h-card"><span class="p-name">Author</span><div class="h-app"><span class="p-name">Nested App</span></div></div>`,
  "entities, quotes and case": `<LINK REL='redirect_uri' HREF="/cb?a=1&amp;b=2"><DIV CLASS="h-app"><SPAN class=p-name>Tom &amp; Jerry&#39;s &lt;App&gt;</SPAN><data class="u-url" value='/say "hi"'></data></DIV>`,
  "value-class pattern and abbr": `<div class="h-app"><span class="p-name"><span class="value">Val</span>ue <abbr class="value" title="App">A</abbr></span><abbr class="u-url" title="/x">x</abbr></div>`,
  "base href": `<html><head><base href="https://cdn.example.org/dir/"><link rel="redirect_uri" href="cb"></head><body><div class="h-app"><img class="u-logo" src="logo.png"><span class="p-name">Based</span></div></body></html>`,
  "formatting tags and tables inside the h-app": `<div class="h-app"><table><tr><td><b><i class="p-name">Bold App</i></b></td></tr></table><p><a class="u-url" href="/home">home<p>para</a></div>`,
  "several rels on one element": `<link rel="stylesheet redirect_uri" href="/cb1"><a rel="me redirect_uri" href="/cb2">x</a>`,
};

describe("the subset reads as the whole page", () => {
  it.each(Object.keys(ORDINARY))("%s", (name) => {
    const html = ORDINARY[name as keyof typeof ORDINARY];
    expect(read(htmlSubset(html, WANTED))).toEqual(read(html));
  });
});

describe("what HTML hides stays hidden", () => {
  it.each([
    [
      "a comment",
      `<!-- <div class="h-app"><span class="p-name">Commented</span></div> <link rel="redirect_uri" href="/c"> -->`,
    ],
    [
      "a script",
      `<script>document.write('<div class="h-app"><span class="p-name">Scripted</span></div><link rel="redirect_uri" href="/c">')</script>`,
    ],
    [
      "a template",
      `<template><div class="h-app"><span class="p-name">Template</span></div><link rel="redirect_uri" href="/c"></template>`,
    ],
    [
      "a textarea",
      `<textarea><div class="h-app"><span class="p-name">Text</span></div><link rel="redirect_uri" href="/c"></textarea>`,
    ],
    [
      "a noscript (read as text with scripting on)",
      `<noscript><div class="h-app"><span class="p-name">No</span></div><link rel="redirect_uri" href="/c"></noscript>`,
    ],
    ["a tag cut off by the end of the page", `<link rel="redirect_uri" href="/c" `],
    ["an attribute value never closed", `<div title='x><div class="h-app"><link rel="redirect_uri" href="/c">`],
  ])("in %s", async (_where, hidden) => {
    const html = `<p>before</p>${hidden}`;
    expect(htmlSubset(html, WANTED)).toBe("");
    const info = await parseClientDocument(
      { url: BASE, status: 200, contentType: "text/html", linkHeaders: [], body: html },
      BASE,
    );
    expect(info).toEqual({ clientId: BASE, redirectUris: [], fetched: true });
  });

  it("a script that mentions its own end tag in a string, and tags after it", () => {
    const html = `<script>var s = "</scr" + "ipt>"; if (a<b) x = '<link rel="redirect_uri" href="/no">';</script ><link rel="redirect_uri" href="/yes">`;
    expect(read(htmlSubset(html, WANTED)).redirects).toEqual(["https://app.example.com/yes"]);
  });
});

describe("what is kept", () => {
  it("only the wanted rels, as bare links, and the first wanted root", () => {
    const html = `<link rel="stylesheet" href="/s.css"><a rel="me redirect_uri" href="/cb">me</a><div class="h-app card col-6" id="a" onclick="x()" style="y"><b class="p-name big">One</b></div><div class="h-app">Two</div>`;
    expect(htmlSubset(html, WANTED)).toBe(
      `<link rel="redirect_uri" href="/cb"><span class="h-app"><span class="p-name">One</span></span>`,
    );
  });

  it("nothing but rels for the owner's page (no roots wanted)", () => {
    const html = `<link rel="authorization_endpoint" href="/auth"><div class="h-app">App</div><link rel="token_endpoint" href="/token">`;
    expect(htmlSubset(html, { rels: ["authorization_endpoint", "token_endpoint"], roots: [] })).toBe(
      `<link rel="authorization_endpoint" href="/auth"><link rel="token_endpoint" href="/token">`,
    );
  });
});
