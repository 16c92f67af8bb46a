/**
 * The page around the sections: one self-contained file. Inline CSS, inline SVG, no script,
 * no font or image by URL, and a Content-Security-Policy that forbids every network load, so
 * opening a report (which holds strings from audited machines) can neither fetch nor run
 * anything.
 */
import { html, SafeHtml } from './escape.js';

export const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

const STYLE = `
:root { color-scheme: light; --text: #1f1f24; --muted: #5f5f6b; --line: #dcdce4; --panel: #f6f6f9; --accent: #3b5b92; --warn: #b4541a; --good: #2d7a4b; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.5 system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif; color: var(--text); background: #fff; }
main { max-width: 1040px; margin: 0 auto; padding: 24px 32px 64px; }
header h1 { margin: 0 0 4px; font-size: 26px; }
.meta, .muted { color: var(--muted); }
h2 { margin: 40px 0 12px; padding-bottom: 6px; border-bottom: 1px solid var(--line); font-size: 20px; }
h3 { margin: 20px 0 8px; font-size: 16px; }
nav { margin: 12px 0 0; font-size: 13px; display: flex; flex-wrap: wrap; gap: 2px 14px; }
a { color: var(--accent); }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(200px, 1fr)); gap: 12px; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; }
.card-label { font-size: 12px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
.card-value { font-size: 26px; font-weight: 650; margin: 2px 0; font-variant-numeric: tabular-nums; }
.card-detail { font-size: 12px; color: var(--muted); }
.card-warn .card-value { color: var(--warn); }
.card-good .card-value { color: var(--good); }
.two-columns { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(320px, 100%), 1fr)); gap: 24px; }
.top-list { padding-left: 18px; margin: 0; }
.top-list li { margin: 6px 0; }
.saving { font-weight: 650; color: var(--good); white-space: nowrap; }
.cost { font-weight: 650; color: var(--warn); white-space: nowrap; }
.step-cost { border-color: var(--warn); }
.badge { display: inline-block; padding: 0 6px; border-radius: 4px; font-size: 11px; font-weight: 650; text-transform: uppercase; color: #fff; background: #777; }
.severity-error { background: #b3261e; }
.severity-warning { background: #b4541a; }
.severity-info { background: #3b5b92; }
figure { margin: 24px 0; }
figcaption { color: var(--muted); font-size: 13px; margin-bottom: 8px; }
svg.chart { display: block; max-width: 100%; height: auto; }
.small-multiples { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(440px, 100%), 1fr)); gap: 8px 24px; }
.small-multiples.grids { grid-template-columns: repeat(auto-fill, minmax(min(240px, 100%), 1fr)); }
.table-wrap { overflow-x: auto; border: 1px solid var(--line); border-radius: 6px; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { padding: 5px 8px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
th { background: var(--panel); font-weight: 600; vertical-align: bottom; }
.name { white-space: nowrap; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num { white-space: nowrap; }
tbody tr:nth-child(even) { background: #fbfbfd; }
.mig { color: var(--muted); }
.evidence { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; color: var(--muted); overflow-wrap: anywhere; }
.recommendation { border: 1px solid var(--line); border-radius: 8px; padding: 4px 16px 12px; margin: 12px 0; }
.recommendation h3 { display: flex; flex-wrap: wrap; justify-content: space-between; gap: 4px 16px; }
details.workload { border: 1px solid var(--line); border-radius: 8px; padding: 6px 16px; margin: 10px 0; }
details.workload summary { cursor: pointer; font-weight: 600; margin-bottom: 6px; }
details.workload ul { margin: 2px 0; padding-left: 18px; }
dl { display: grid; grid-template-columns: 130px 1fr; gap: 4px 12px; margin: 0; }
dt { font-weight: 600; }
dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
dl.definitions { grid-template-columns: 1fr; }
dl.definitions dd { margin: 0 0 10px; }
pre { background: #1f2330; color: #e9ecf2; padding: 12px; border-radius: 6px; overflow-x: auto; font-size: 12px; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
ul.facts { padding-left: 18px; }
@media (max-width: 600px) { main { padding: 16px 12px 48px; } dl { grid-template-columns: 1fr; } dt { margin-top: 6px; } .card-value { font-size: 22px; } }
@media print {
  main { max-width: none; padding: 0; }
  h2 { break-after: avoid; }
  figure, .recommendation, details.workload { break-inside: avoid; }
  .table-wrap { overflow: visible; border: none; }
  table { font-size: 9px; }
  th, td { padding: 2px 3px; overflow-wrap: anywhere; }
  .name, td.num, .saving, .cost { white-space: normal; }
  pre { white-space: pre-wrap; overflow-wrap: anywhere; }
}
`;

/** The page around a body given in parts, in pieces: what comes before the body, each part, what comes after. */
export function* pagePieces(title: string, parts: Iterable<SafeHtml>): Generator<string, void, undefined> {
  yield `<!DOCTYPE html>\n${html`<html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer"><title>${title}</title><style>${new SafeHtml(STYLE)}</style></head><body><main>`.value}`;
  for (const part of parts) yield part.value;
  yield '</main></body></html>\n';
}

