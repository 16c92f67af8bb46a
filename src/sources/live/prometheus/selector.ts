/**
 * `--selector '{namespace="ml",Hostname=~"gpu-.*"}'`: label matchers added to every query.
 * The text is spliced into PromQL, so it is checked to be exactly a list of matchers in
 * braces (name, one of = != =~ !~, a quoted string) and nothing else: no metric name, no
 * range, no second expression. Anything else is a usage error (exit 2).
 */
import { InputError } from '../../../support/index.js';

const LABEL_NAME = '[a-zA-Z_][a-zA-Z0-9_]*';
const OPERATOR = '=~|!~|!=|=';
/** A PromQL string: double, single or back-quoted; escapes allowed in the first two. */
const STRING = '"(?:[^"\\\\\\n]|\\\\.)*"|\'(?:[^\'\\\\\\n]|\\\\.)*\'|`[^`]*`';
const MATCHER = new RegExp(`^\\s*(${LABEL_NAME})\\s*(${OPERATOR})\\s*(${STRING})\\s*`);

/** The matchers inside the braces, each normalised to `name<op>"value"` spelling as given; [] for `{}`. */
export function parseSelector(text: string): string[] {
  const trimmed = text.trim();
  const fail = (why: string): never => {
    throw new InputError(`--selector ${JSON.stringify(text)}: ${why}; expected label matchers in braces such as '{namespace="ml",Hostname=~"gpu-.*"}'`);
  };
  if (!trimmed.startsWith('{') || !trimmed.endsWith('}')) fail('not in braces');
  let rest = trimmed.slice(1, -1);
  const matchers: string[] = [];
  while (rest.trim() !== '') {
    const match = MATCHER.exec(rest);
    if (match === null) fail(`cannot read a matcher at ${JSON.stringify(rest.trim().slice(0, 40))}`);
    const [whole, name, operator, value] = match!;
    if (name === '__name__') fail('the metric name is chosen by gpu-audit');
    matchers.push(`${name}${operator}${value}`);
    rest = rest.slice(whole.length);
    if (rest.startsWith(',')) rest = rest.slice(1);
    else if (rest.trim() !== '') fail('matchers must be separated by commas');
  }
  return matchers;
}

/** The label a multi-cluster Thanos or Mimir tells its clusters apart by, unless named. */
export const DEFAULT_CLUSTER_LABEL = 'cluster';

/**
 * `--prometheus-cluster-label prod` or `region=eu-1`: one cluster of a store that holds many,
 * as a matcher added to every query (`cluster="prod"`).
 */
export function clusterMatcher(text: string): string {
  const equals = text.indexOf('=');
  const [name, value] = equals < 0 ? [DEFAULT_CLUSTER_LABEL, text] : [text.slice(0, equals).trim(), text.slice(equals + 1)];
  if (!new RegExp(`^${LABEL_NAME}$`).test(name) || name === '__name__' || value === '') {
    throw new InputError(`--prometheus-cluster-label ${JSON.stringify(text)}: expected a cluster name (matched on the label ${DEFAULT_CLUSTER_LABEL}) or LABEL=VALUE, e.g. prod or k8s_cluster=prod`);
  }
  // A JSON string is a valid PromQL double-quoted string: the same escapes.
  return `${name}=${JSON.stringify(value)}`;
}

/** `name{matchers}` for a metric, or `{__name__=~"a|b",matchers}` for several. */
export function seriesSelector(metricNames: readonly string[], matchers: readonly string[]): string {
  if (metricNames.length === 1) return matchers.length === 0 ? metricNames[0]! : `${metricNames[0]!}{${matchers.join(',')}}`;
  return `{${[`__name__=~"${metricNames.join('|')}"`, ...matchers].join(',')}}`;
}
