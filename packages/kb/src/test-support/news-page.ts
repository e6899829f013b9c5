/**
 * A news page of about `targetBytes`, built the way large sites serve them: a head full of meta
 * tags, an inline stylesheet, JSON-LD and an inline application state script; a header with a
 * mega menu and SVG icons; the article (headings, paragraphs with links, lists, a figure, a quote,
 * a code block, a table); a sidebar of related stories, an ad slot and a newsletter form; a
 * comments teaser, a footer of link columns, a cookie banner and analytics scripts. The article
 * takes about a third of the bytes, as on real pages. The same input always gives the same page.
 */

/** Words the generated prose is made of. */
const words = (
  'harbour council tide river flood bridge engineers survey report budget season coast barrier ' +
  'storm residents ferry timetable repairs quay level gauge rainfall estimate warning plan meeting ' +
  'evidence pumps channel sediment dredging schedule contract inspection marsh path cyclists ' +
  'market traders festival museum archive records decade century winter summer spring autumn'
).split(' ');

/** A small deterministic generator (mulberry32), so the page is the same on every run. */
function randomFrom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

/** Phrases the quality tests look for in the Markdown, one per article section. */
export const NEWS_PAGE_SECTION_MARKERS = [
  'The survey of the old harbour wall began in March',
  'Engineers counted forty-one cracked blocks',
  'The council will vote on the budget in June',
  'Ferry operators asked for a new timetable',
  'Residents of the marsh path have seen three floods',
  'The archive holds tide records from 1862',
] as const;

/** Text that belongs to the page furniture only; none of it may reach the Markdown. */
export const NEWS_PAGE_FURNITURE = [
  'Sign up for the morning briefing',
  'Advertisement: harbour view apartments',
  'Most read this week',
  'We use cookies to improve',
  'window.__APP_STATE__',
  'dataLayer.push',
  'Terms of service',
] as const;

export const NEWS_PAGE_TITLE = 'Harbour wall survey finds more damage than expected';

export function buildNewsPage(targetBytes = 200 * 1024): string {
  const random = randomFrom(12);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const sentence = (count: number) => {
    const chosen = Array.from({ length: count }, () => pick(words));
    const text = chosen.join(' ');
    return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
  };
  const paragraph = (lead: string) =>
    `<p>${lead}. ${sentence(14)} ${sentence(11)} See the <a href="https://news.example.com/${pick(words)}/${Math.floor(random() * 9000)}">${pick(words)} ${pick(words)} coverage</a> for context. ${sentence(16)} ${sentence(9)}</p>`;
  const icon = (name: string) =>
    `<svg class="icon icon-${name}" viewBox="0 0 24 24" aria-hidden="true"><path d="${Array.from({ length: 24 }, () => `L${Math.floor(random() * 24)} ${Math.floor(random() * 24)}`).join(' ')}Z"/></svg>`;

  const style = Array.from(
    { length: 500 },
    (_, index) =>
      `.c-${index}{margin:${index % 7}px ${index % 5}px;font-family:Georgia,serif;color:#${(index * 2654435761).toString(16).slice(0, 6).padStart(6, '0')}}`,
  ).join('\n');
  const state = JSON.stringify({
    user: null,
    edition: 'uk',
    stories: Array.from({ length: 480 }, (_, index) => ({
      id: 100_000 + index,
      headline: sentence(8),
      url: `https://news.example.com/story/${100_000 + index}`,
      tags: [pick(words), pick(words)],
    })),
  });
  const head = `<head>
<meta charset="utf-8"><title>${NEWS_PAGE_TITLE} | The Coastal Times</title>
${Array.from({ length: 30 }, (_, index) => `<meta property="og:extra:${index}" content="${sentence(6)}">`).join('\n')}
<link rel="preload" href="/static/fonts/serif.woff2" as="font"><link rel="stylesheet" href="/static/site.css">
<style>${style}</style>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"${NEWS_PAGE_TITLE}"}</script>
<script>window.__APP_STATE__ = ${state};</script>
</head>`;

  const menu = Array.from(
    { length: 12 },
    (_, group) =>
      `<li class="menu-group"><a href="/section/${group}">${pick(words)}</a><ul class="submenu">${Array.from(
        { length: 10 },
        (_, item) =>
          `<li><a href="/section/${group}/${item}" data-track="nav-${group}-${item}">${pick(words)} ${pick(words)}</a></li>`,
      ).join('')}</ul></li>`,
  ).join('\n');
  const header = `<header class="site-header">${icon('logo')}<a class="logo" href="/">The Coastal Times</a>
<nav class="main-nav" aria-label="Sections"><ul>${menu}</ul></nav>
<div class="header-tools">${icon('search')}${icon('account')}<a href="/subscribe">Subscribe</a></div></header>
<div class="ad ad-leaderboard" data-slot="top">Advertisement: harbour view apartments from 250,000</div>`;

  const sections = NEWS_PAGE_SECTION_MARKERS.map((marker, index) => {
    const extras = [
      `<ul>${Array.from({ length: 4 }, () => `<li><strong>${pick(words)}</strong>: ${sentence(9)}</li>`).join('')}</ul>`,
      `<figure><img src="https://cdn.example.com/img/${index}.jpg" srcset="https://cdn.example.com/img/${index}-2x.jpg 2x" alt="The harbour wall at low water"><figcaption>The harbour wall at low water, photo ${index + 1}.</figcaption></figure>`,
      `<blockquote><p>${sentence(18)}</p></blockquote>`,
      `<pre><code>gauge ${index}: high water 19:58  5.1 m\ngauge ${index}: low water 13:42  0.4 m</code></pre>`,
      `<table><thead><tr><th>Block</th><th>Damage</th></tr></thead><tbody>${Array.from({ length: 5 }, (_, row) => `<tr><td>${index * 10 + row}</td><td>${pick(words)}</td></tr>`).join('')}</tbody></table>`,
    ];
    return `<h2>${marker.split(' ').slice(1, 5).join(' ')}</h2>\n${paragraph(marker)}\n${paragraph(sentence(6).slice(0, -1))}\n${extras[index % extras.length]}\n${paragraph(sentence(5).slice(0, -1))}`;
  });

  const related = (count: number) =>
    Array.from(
      { length: count },
      (_, index) =>
        `<li class="related-item"><a href="/story/${200 + index}"><img src="https://cdn.example.com/thumb/${index}.jpg" alt="" loading="lazy" data-src-set="${'x'.repeat(120)}"><span class="headline">${sentence(7)}</span></a><span class="meta">${Math.floor(random() * 50)} comments</span></li>`,
    ).join('\n');
  const sidebar = `<aside class="sidebar"><section class="most-read"><h3>Most read this week</h3><ol>${related(20)}</ol></section>
<div class="ad ad-mpu">Advertisement: harbour view apartments, ask for a viewing</div>
<form class="newsletter" action="/newsletter"><label>Sign up for the morning briefing</label><input type="email" name="email"><button>${icon('mail')}Sign up</button></form></aside>`;
  const footer = `<section class="comments-teaser"><h3>Comments</h3><a href="/story/1/comments">Read 214 comments</a></section>
<footer class="site-footer">${Array.from({ length: 6 }, (_, column) => `<div class="footer-column"><h4>${pick(words)}</h4><ul>${Array.from({ length: 12 }, (_, item) => `<li><a href="/footer/${column}/${item}">${pick(words)} ${pick(words)}</a></li>`).join('')}</ul></div>`).join('\n')}
<p class="legal"><a href="/terms">Terms of service</a> · <a href="/privacy">Privacy</a> · © The Coastal Times</p></footer>
<div class="cookie-banner" role="dialog"><p>We use cookies to improve your experience.</p><button>Accept</button></div>
<script>window.dataLayer = window.dataLayer || []; dataLayer.push({ event: 'pageview', section: 'news' });</script>
<script src="/static/app.js" defer></script>`;

  const build = (paragraphs: string[]) => `<!doctype html>
<html lang="en">${head}
<body class="article-page">${header}
<div class="layout"><main><article class="story">
<h1>${NEWS_PAGE_TITLE}</h1><p class="byline">By Ines Marlow, 12 March 2026</p>
${sections.join('\n')}
${paragraphs.join('\n')}
</article></main>
${sidebar}</div>
${footer}
</body></html>`;

  // Filler sections of the article and filler stories in the state script grow the page to size,
  // keeping the article about a third of it.
  const more: string[] = [];
  let page = build(more);
  while (page.length < targetBytes) {
    more.push(
      `<h2>${sentence(4).slice(0, -1)}</h2>\n${paragraph(sentence(6).slice(0, -1))}\n${paragraph(sentence(5).slice(0, -1))}`,
    );
    page = build(more);
  }
  return page;
}
