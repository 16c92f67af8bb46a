/**
 * The formats a report-rendering command (audit, check, report) writes, and the file
 * extensions each is known by, so that one run can write several: `-o report.json -o
 * gpu-audit.sarif -o summary.md`. A bare `.xml` names no format (JUnit and other XML look alike).
 */
export const OUTPUT_FORMATS = ['table', 'json', 'markdown', 'html', 'csv', 'junit', 'sarif', 'github-comment'] as const;

export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** Format -> the suffixes that name it, the usual one first. */
export const OUTPUT_EXTENSIONS: Readonly<Record<OutputFormat, readonly string[]>> = {
  table: ['.txt'],
  json: ['.json'],
  markdown: ['.md', '.markdown'],
  html: ['.html', '.htm'],
  csv: ['.csv'],
  junit: ['.junit.xml'],
  sarif: ['.sarif', '.sarif.json'],
  'github-comment': ['.comment.md'],
};

/** Longest suffix first: `x.sarif.json` is SARIF, not JSON; `pr.comment.md` a comment, not the Markdown report. */
const BY_SUFFIX = OUTPUT_FORMATS.flatMap((format) => OUTPUT_EXTENSIONS[format].map((suffix) => [suffix, format] as const)).sort(
  ([a], [b]) => b.length - a.length,
);

/** The format a file's name asks for (case-insensitive), or undefined when its extension names none. */
export function formatOfFile(file: string): OutputFormat | undefined {
  const name = file.toLowerCase();
  return BY_SUFFIX.find(([suffix]) => name.endsWith(suffix))?.[1];
}

/** `.txt table, .json json, ...`: the usual suffix of each format, for help text and refusals. */
export function usualExtensions(): string {
  return OUTPUT_FORMATS.map((format) => `${OUTPUT_EXTENSIONS[format][0]!} ${format}`).join(', ');
}
