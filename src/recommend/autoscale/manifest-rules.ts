/**
 * What the Kubernetes API server checks of a manifest, as far as the autoscalers' manifests
 * need it: required fields, int32 ranges, enums, and (stricter than the server, which drops
 * them) unknown fields. The first rule broken is the verdict, as the server's first error.
 */
import { parse } from 'yaml';

export type ManifestVerdict = { ok: true } | { ok: false; reason: string };

export type Fields = Record<string, unknown>;
export const isFields = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);
const INT32_MAX = 2 ** 31 - 1;

export class Rules {
  problem: string | undefined;

  fail(reason: string): void {
    this.problem ??= reason;
  }

  known(value: Fields, allowed: readonly string[], where: string): void {
    const extra = Object.keys(value).find((key) => !allowed.includes(key));
    if (extra !== undefined) this.fail(`${where}: unknown field "${extra}"`);
  }

  int32(value: unknown, where: string, minimum: number, maximum = INT32_MAX): void {
    if (value === undefined) return;
    if (typeof value !== 'number' || !Number.isInteger(value)) this.fail(`${where}: must be an integer`);
    else if (value < minimum || value > maximum) this.fail(`${where}: must be in ${minimum}..${maximum}`);
  }

  text(value: unknown, where: string, required: boolean): void {
    if (value === undefined) {
      if (required) this.fail(`${where}: Required value`);
    } else if (typeof value !== 'string') this.fail(`${where}: must be a string`);
  }

  verdict(): ManifestVerdict {
    return this.problem === undefined ? { ok: true } : { ok: false, reason: this.problem };
  }
}

/** autoscaling/v2 HorizontalPodAutoscalerBehavior, as KEDA's advanced config and the HPA both carry it. */
export function checkBehavior(behavior: unknown, where: string, rules: Rules): void {
  if (behavior === undefined) return;
  if (!isFields(behavior)) return rules.fail(`${where}: must be an object`);
  rules.known(behavior, ['scaleUp', 'scaleDown'], where);
  for (const direction of ['scaleUp', 'scaleDown'] as const) {
    const rule = behavior[direction];
    if (rule === undefined) continue;
    const at = `${where}.${direction}`;
    if (!isFields(rule)) {
      rules.fail(`${at}: must be an object`);
      continue;
    }
    rules.known(rule, ['policies', 'selectPolicy', 'stabilizationWindowSeconds', 'tolerance'], at);
    rules.int32(rule.stabilizationWindowSeconds, `${at}.stabilizationWindowSeconds`, 0, 3600);
    if (rule.selectPolicy !== undefined && !['Max', 'Min', 'Disabled'].includes(rule.selectPolicy as string)) rules.fail(`${at}.selectPolicy: must be Max, Min or Disabled`);
    if (rule.policies !== undefined) {
      if (!Array.isArray(rule.policies)) rules.fail(`${at}.policies: must be a list`);
      else rule.policies.forEach((policy: unknown, index) => {
        const here = `${at}.policies[${index}]`;
        if (!isFields(policy)) return rules.fail(`${here}: must be an object`);
        rules.known(policy, ['type', 'value', 'periodSeconds'], here);
        if (!['Pods', 'Percent'].includes(policy.type as string)) rules.fail(`${here}.type: must be Pods or Percent`);
        if (policy.value === undefined || policy.periodSeconds === undefined) rules.fail(`${here}: type, value and periodSeconds are required`);
        rules.int32(policy.value, `${here}.value`, 1);
        rules.int32(policy.periodSeconds, `${here}.periodSeconds`, 1, 1800);
      });
    }
  }
}


/** The document, or why it is none. */
export function parseManifest(text: string): Fields | string {
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    return `not YAML: ${(error as Error).message.split('\n')[0]}`;
  }
  return isFields(document) ? document : 'not an object';
}
