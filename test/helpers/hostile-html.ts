// Client pages built to make an HTML or microformats parser slow, each as large as discovery
// fetches (512 KB), and real-looking client pages that must keep working. Shared by the parser
// tests (test/adversarial/attacks/parser-cost.test.ts) and the bench (scripts/bench/parse-cost.ts).

export const PAGE_BYTES = 512 * 1024;

/** `unit` repeated to `size` characters, with `head` before and `tail` after. */
function fill(unit: string, head = "", tail = "", size = PAGE_BYTES): string {
  const room = size - head.length - tail.length;
  return head + unit.repeat(Math.ceil(room / unit.length)).slice(0, room) + tail;
}

const numbered = (make: (i: number) => string, head = "", size = PAGE_BYTES): string => {
  let out = head;
  for (let i = 0; out.length < size; i++) out += make(i);
  return out.slice(0, size);
};

/** Pathological pages: name -> body. The first two are the ones the review timed (14 s, 17 s). */
export const HOSTILE_PAGES: Readonly<Record<string, string>> = {
  "mis-nested formatting <b><i><a><u><s>x": fill("<b><i><a><u><s>x"),
  "<a><div>x": fill("<a><div>x"),
  "deep nesting <div>x": fill("<div>x"),
  "deep nesting <span> inside an h-app": fill("<span>x", '<div class="h-app">'),
  "nested p-name properties in an h-app": fill('<span class="p-name">x', '<div class="h-app">'),
  "nested e-content properties in an h-app": fill('<div class="e-content">x', '<div class="h-x-app">'),
  "nested h-app roots": fill('<div class="h-app h-card p-name">x'),
  "one tag with 100,000 attributes": fill(" a", '<div class="h-app"', ">x"),
  "many tags with repeated attributes": fill(
    '<i class="h-app" class=x rel=redirect_uri href=/cb href=/cb title=t title=t>x',
  ),
  "a class list of 100,000 classes": fill(" p-name", '<div class="h-app', '">x</div>'),
  "unclosed comment": fill("x", "<!--"),
  "many comments": fill("<!--x--!><!---><!-->"),
  "unclosed script with near-miss end tags": fill("</scrip", "<script>"),
  "tables mis-nested in cells": fill("<table><tr><td>x"),
  "text in tables (foster parenting)": fill("<table>x<b>y"),
  "<p> inside formatting": fill("<b><p>x"),
  "formatting twins with different attributes": numbered((i) => `<b class="c${i}">x`),
  "<nobr> repeated": fill("<nobr>x"),
  "unclosed lists and options": fill("<li><dd><option>x"),
  "<select> and <svg> nesting": fill("<select><svg><math>x"),
  "nested <template>": fill("<template>x"),
  "every element a redirect_uri link": numbered((i) => `<a rel="redirect_uri" href="/cb${i}"><div>`),
  // Within what reaches the parser: as much microformats work per character as markup allows.
  "h-app of nested items with every property, 31 deep": fill(
    `${'<div class="h-entry h-card p-name e-content u-url dt-published">x'.repeat(31)}${"</div>".repeat(31)}`,
    '<div class="h-app">',
  ),
  "h-app of 1,000 sibling items": fill(
    '<div class="h-card p-author e-content"><a class="u-url p-name" href="/x"><img src="/i.png" alt="y"></a></div>',
    '<div class="h-app">',
  ),
  "h-app of 1,000 properties": fill(
    '<span class="p-name e-content u-url dt-updated p-note">x</span>',
    '<div class="h-app">',
  ),
  "h-app of value-class patterns": fill(
    '<span class="p-name dt-start"><span class="value">1</span><abbr class="value" title="2">x</abbr></span>',
    '<div class="h-app">',
  ),
  "mf1 include pattern (itemref to a large node)": `<div id="big">${"y".repeat(128 * 1024)}</div>${fill('<div class="vcard" itemref="big">x</div>', "", "", PAGE_BYTES - 128 * 1024 - 20)}`,
};

const quillHead = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Quill</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/bootstrap/css/bootstrap.min.css"><link rel="stylesheet" href="/css/style.css">
<link rel="redirect_uri" href="/auth/callback">
<link rel="authorization_endpoint" href="https://indieauth.com/auth">
<script>window.flags = { a: 1 < 2 && 3 > 2, html: "<div class='h-app'>not this</div>" };</script>
<style>.h-x-app img { float: left } a > b { color: red }</style></head>`;

const article = (
  i: number,
) => `<article class="h-entry post"><h2 class="p-name"><a class="u-url" href="/posts/${i}">Post ${i}</a></h2>
<p class="e-content">Some <b>bold</b> and <i>italic</i> text, a <a href="https://example.com/${i}" rel="nofollow">link</a>, an image <img src="/img/${i}.jpg" alt="photo ${i}">,
<code>a &lt; b</code> &amp; a table:</p><table><tr><td>${i}</td><td>cell</td></tr></table><!-- comment ${i} --></article>\n`;

/** Client pages as real clients publish them (Quill, Indigenous, a large blog-style page): each
 * must still give its name, logo, url and redirect URIs. */
export const REAL_PAGES: Readonly<Record<string, { body: string; linkHeaders: string[] }>> = {
  "Quill-style page (h-x-app h-app, <link rel=redirect_uri>)": {
    body: `${quillHead}<body><nav class="navbar"><ul><li><a href="/">Home</a><li><a href="/docs">Docs</a></ul></nav>
<div class="container"><div class="h-x-app h-app"><img src="/images/quill-logo-144.png" class="u-logo" alt="" style="width:72px">
<h2><a href="https://quill.p3k.io/" class="u-url p-name">Quill</a></h2><p class="p-summary">Quill is a Micropub client.</p></div>
<p>Sign in with your domain to start posting.</p><form action="/auth/start"><input type="url" name="me"><button>Sign in</button></form></div>
<script src="/js/app.js"></script></body></html>`,
    linkHeaders: [],
  },
  "Indigenous-style page (Link header, h-app in the footer of 150 KB)": {
    body: `<!doctype html><html><head><meta charset="utf-8"><title>Indigenous</title></head><body><main>${Array.from({ length: 200 }, (_, i) => article(i)).join("")}</main>
<footer><div class="h-app"><a class="u-url" href="/"><img class="u-logo" src="/logo.png" alt="Indigenous"></a><span class="p-name">Indigenous</span>
<a rel="redirect_uri" href="indigenous://auth">native callback</a></div></footer></body></html>`,
    linkHeaders: ['<https://indigenous.realize.be/callback>; rel="redirect_uri"'],
  },
  "h-app on <body>, 200 KB of posts": {
    body: `<!doctype html><html><head><link rel="redirect_uri" href="/callback"></head><body class="h-app"><header><img class="u-logo" src="/logo.svg" alt="">
<h1 class="p-name">Blog App</h1><a class="u-url" href="/">home</a></header>${Array.from({ length: 550 }, (_, i) => article(i)).join("")}</body></html>`,
    linkHeaders: [],
  },
};
