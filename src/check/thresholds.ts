/**
 * The limits a check runs under: from flags and from `thresholds:` in gpu-audit.yaml
 * (config/), merged by mergeThresholds with flags winning. What can be gated on is
 * declared once, in src/model/thresholds.ts.
 */
import { closestKey, InputError } from '../support/index.js';
import { DEFAULT_FINDING_LEVEL, FINDING_CODE_NAMES, THRESHOLD_DEFINITIONS, type Comparison, type FindingLevel, type ThresholdKey, type Thresholds } from '../model/index.js';

/** Flag values as commander hands them over: camelCase keys of THRESHOLD_DEFINITIONS plus `findingLevel`. */
export type ThresholdFlags = Partial<Record<ThresholdKey, number>> & { findingLevel?: Record<string, FindingLevel> };

export function thresholdsFromFlags(flags: ThresholdFlags): Thresholds {
  const limits: Partial<Record<ThresholdKey, number>> = {};
  for (const definition of THRESHOLD_DEFINITIONS) {
    const value = flags[definition.key];
    if (value !== undefined) limits[definition.key] = value;
  }
  return { limits, findingLevels: { ...flags.findingLevel } };
}

/** Config first, flags over it: a flag given on the command line always wins, key by key. */
export function mergeThresholds(fromConfig: Thresholds, fromFlags: Thresholds): Thresholds {
  return {
    limits: { ...fromConfig.limits, ...fromFlags.limits },
    findingLevels: { ...fromConfig.findingLevels, ...fromFlags.findingLevels },
  };
}

export function findingLevel(thresholds: Thresholds, code: string): FindingLevel {
  return Object.hasOwn(thresholds.findingLevels, code) ? thresholds.findingLevels[code]! : DEFAULT_FINDING_LEVEL;
}

/** `actual` holds against `limit` (equal is within the limit either way). */
export function withinLimit(comparison: Comparison, actual: number, limit: number): boolean {
  return comparison === 'at-most' ? actual <= limit : actual >= limit;
}

/**
 * Why a finding code is not one: a typo would otherwise set a level nothing reads and weaken
 * the gate without a word. Undefined for a known code.
 */
export function unknownFindingCode(code: string): string | undefined {
  if ((FINDING_CODE_NAMES as readonly string[]).includes(code)) return undefined;
  // `idle` for `idle-gpu`: a code cut short is as likely as one misspelt.
  const suggestion = closestKey(code, FINDING_CODE_NAMES) ?? FINDING_CODE_NAMES.find((name) => code.length >= 3 && name.startsWith(code));
  return `unknown finding code \`${code}\`${suggestion === undefined ? '' : `; did you mean \`${suggestion}\`?`} (known: ${FINDING_CODE_NAMES.join(', ')})`;
}

/**
 * The `thresholds:` section of gpu-audit.yaml (a name -> number map plus `findings:`, as
 * src/config/document/schema.ts validates it) as Thresholds. Names are the flag names
 * (`max-waste-pct`) or their camelCase keys (`maxWastePct`); an unknown name is an error
 * naming it, not a limit silently ignored. `file` names the config file in that error.
 */
export function thresholdsFromConfig(
  section: { findings?: Record<string, FindingLevel> | undefined } & Record<string, unknown>,
  file?: string,
): Thresholds {
  const limits: Partial<Record<ThresholdKey, number>> = {};
  for (const [name, value] of Object.entries(section)) {
    if (name === 'findings' || value === undefined) continue;
    const definition = THRESHOLD_DEFINITIONS.find((entry) => entry.name === name || entry.key === name);
    if (definition === undefined) {
      const names = THRESHOLD_DEFINITIONS.flatMap((entry) => [entry.name, entry.key]);
      const suggestion = closestKey(name, names);
      throw new InputError(`unknown threshold ${JSON.stringify(name)}${suggestion === undefined ? '' : `; did you mean \`${suggestion}\`?`} (known: ${THRESHOLD_DEFINITIONS.map((entry) => entry.name).join(', ')})`, { file, location: `thresholds.${name}` });
    }
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (definition.domain === 'percent' && value > 100)) {
      throw new InputError(`expected ${definition.domain === 'percent' ? 'a percentage from 0 to 100' : 'a number >= 0'}`, { file, location: `thresholds.${name}` });
    }
    limits[definition.key] = value;
  }
  for (const code of Object.keys(section.findings ?? {})) {
    const problem = unknownFindingCode(code);
    if (problem !== undefined) throw new InputError(problem, { file, location: `thresholds.findings.${code}` });
  }
  return { limits, findingLevels: { ...section.findings } };
}
