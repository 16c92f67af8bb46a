/** A step's configuration as an open <details>, and the one to apply instead where there is one. */
import type { RecommendationConfig } from '../../model/index.js';
import { escapeHtmlBlock, html, type SafeHtml } from './escape.js';

export function configDetails(config: RecommendationConfig | undefined): SafeHtml | null {
  if (config === undefined) return null;
  const alternative = config.alternative === undefined
    ? null
    : html`<details><summary>Instead (${config.alternative.format}): ${config.alternative.note}</summary><pre><code>${escapeHtmlBlock(config.alternative.text)}</code></pre></details>`;
  return html`<details open><summary>Configuration (${config.format})</summary><pre><code>${escapeHtmlBlock(config.text)}</code></pre></details>${alternative}`;
}
