/**
 * schema/report.schema.json is what consumers validate saved reports against. These
 * tests keep it in step with the TypeScript contract (src/model/report.ts): the same
 * keys in the same order, `required` = every key but the optional ones, and every
 * object closed; hand-built reports validate and broken ones do not.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { REPORT_SCHEMA_VERSION } from '../../src/model/report.js';
import type { Report } from '../../src/model/report.js';
import { REPORT_ORDER } from '../../src/model/report-key-order.js';
import type { ContractNode } from '../../src/model/report-key-order.js';
import { renderJson } from '../../src/render/json.js';
import { repoRoot } from '../helpers/corpus.js';
import { FINDINGS_AND_RECOMMENDATIONS } from '../fixtures/reports/findings-and-recommendations.js';
import { PLANNED_FLEET } from '../fixtures/reports/planned-fleet.js';
import { SMALL_FLEET } from '../fixtures/reports/small-fleet.js';
import { SNAPSHOT_ONLY } from '../fixtures/reports/snapshot-only.js';

interface SchemaNode {
  $ref?: string;
  anyOf?: SchemaNode[];
  type?: string | string[];
  description?: string;
  properties?: Record<string, SchemaNode>;
  required?: string[];
  additionalProperties?: boolean | SchemaNode;
  items?: SchemaNode;
  $defs?: Record<string, SchemaNode>;
  $id?: string;
}

const schema = JSON.parse(readFileSync(path.join(repoRoot, 'schema/report.schema.json'), 'utf8')) as SchemaNode;
const definitions = schema.$defs ?? {};

// ajv-formats is CommonJS: imported from ESM, the plugin is `module.exports.default`.
const addFormats = addFormatsModule.default;
// Strict, but with union types (`["number", "null"]`): standard JSON Schema, and how the schema writes nullable.
const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
addFormats(ajv);
const validate = ajv.compile<Report>(schema);

/** The report as a consumer reads it: through the JSON renderer and back. */
function asJson(report: Report): Record<string, unknown> {
  return JSON.parse(renderJson(report, { color: false, width: 100 })) as Record<string, unknown>;
}

function errorsOf(document: unknown): Pick<ErrorObject, 'instancePath' | 'keyword' | 'params'>[] {
  if (validate(document)) return [];
  return (validate.errors ?? []).map(({ instancePath, keyword, params }) => ({ instancePath, keyword, params }));
}

type Edit = (document: Record<string, unknown>) => void;

/** The object holding the last segment of a JSON pointer (`/gpus/0/memoryTotalMiB`), and that segment. */
function locate(document: Record<string, unknown>, pointer: string): [Record<string, unknown>, string] {
  const segments = pointer.split('/').slice(1);
  const last = segments.pop()!;
  const parent = segments.reduce<unknown>((node, segment) => (node as Record<string, unknown>)[segment], document);
  return [parent as Record<string, unknown>, last];
}

const setting = (pointer: string, value: unknown): Edit => (document) => {
  const [parent, key] = locate(document, pointer);
  parent[key] = value;
};

const removing = (pointer: string): Edit => (document) => {
  const [parent, key] = locate(document, pointer);
  delete parent[key];
};

/** A valid report (the small fleet) with one edit applied to its JSON form. */
function broken(edit: Edit): Record<string, unknown> {
  const document = asJson(SMALL_FLEET);
  edit(document);
  return document;
}

const finding = (overrides: Record<string, unknown>): Record<string, unknown> => ({
  id: 'x:fleet', code: 'x', severity: 'info', target: 'fleet', message: '', evidence: {}, ...overrides,
});

function definitionOf(node: ContractNode): SchemaNode {
  const found = node.definition === 'Report' ? schema : definitions[node.definition];
  if (found === undefined) throw new Error(`schema has no $defs/${node.definition}`);
  return found;
}

function contractNodes(node: ContractNode, seen = new Map<string, ContractNode>()): Map<string, ContractNode> {
  seen.set(node.definition, node);
  for (const child of Object.values(node.nested)) if (child !== undefined) contractNodes(child, seen);
  return seen;
}

describe('report.schema.json', () => {
  it('is a draft 2020-12 schema whose $id carries the contract version', () => {
    expect((schema as Record<string, unknown>)['$schema']).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.$id).toMatch(new RegExp(`:${REPORT_SCHEMA_VERSION}$`, 'u'));
  });

  it.each([
    ['a small fleet with MIG devices', SMALL_FLEET],
    ['a snapshot with nulls', SNAPSHOT_ONLY],
    ['a report with findings and recommendations', FINDINGS_AND_RECOMMENDATIONS],
    ['a report with a plan', PLANNED_FLEET],
  ])('accepts %s', (_name, report) => {
    expect(errorsOf(asJson(report))).toEqual([]);
  });

  it.each<[string, Edit, Pick<ErrorObject, 'instancePath' | 'keyword'>]>([
    ['a missing top-level key', removing('/summary'), { instancePath: '', keyword: 'required' }],
    ['a missing nested key', removing('/summary/wastePct'), { instancePath: '/summary', keyword: 'required' }],
    ['a number given as a string', setting('/gpus/0/memoryTotalMiB', '81559'), { instancePath: '/gpus/0/memoryTotalMiB', keyword: 'type' }],
    ['null where the contract has no null', setting('/gpus/0/gpuHours', null), { instancePath: '/gpus/0/gpuHours', keyword: 'type' }],
    ['a key the contract does not have', setting('/gpus/0/colour', 'green'), { instancePath: '/gpus/0', keyword: 'additionalProperties' }],
    ['an unknown severity', setting('/findings', [finding({ severity: 'critical' })]), { instancePath: '/findings/0/severity', keyword: 'enum' }],
    ['another schema version', setting('/schemaVersion', 3), { instancePath: '/schemaVersion', keyword: 'const' }],
    ['a time that is not RFC 3339', setting('/generatedAt', 'yesterday'), { instancePath: '/generatedAt', keyword: 'format' }],
    ['an idle fraction above 1', setting('/gpus/0/idleFraction', 1.5), { instancePath: '/gpus/0/idleFraction', keyword: 'maximum' }],
    ['a pid that is not an integer', setting('/gpus/1/processes/0/pid', 41.5), { instancePath: '/gpus/1/processes/0/pid', keyword: 'type' }],
    ['an evidence value that is an object', setting('/findings', [finding({ evidence: { nested: {} } })]), { instancePath: '/findings/0/evidence/nested', keyword: 'type' }],
    ['a recommendation config without its text', setting('/recommendations', [{ ...FINDINGS_AND_RECOMMENDATIONS.recommendations[1], config: { format: 'yaml' } }]), { instancePath: '/recommendations/0/config', keyword: 'required' }],
  ])('rejects %s', (_name, edit, expected) => {
    expect(errorsOf(broken(edit))).toContainEqual(expect.objectContaining(expected));
  });

  it('lists the keys of every contract object in contract order, requiring all but the optional ones', () => {
    // REPORT_ORDER is checked against the TypeScript interfaces at compile time
    // (src/model/report-key-order.ts): a key added to the model fails `tsc` there first.
    for (const node of contractNodes(REPORT_ORDER).values()) {
      const definition = definitionOf(node);
      expect(Object.keys(definition.properties ?? {}), node.definition).toEqual([...node.keys]);
      expect(definition.required, node.definition).toEqual(node.keys.filter((key) => !node.optional.includes(key)));
      expect(definition.additionalProperties, node.definition).toBe(false);
    }
  });

  it('has a definition for every contract object and no object definition the contract lacks', () => {
    const contract = [...contractNodes(REPORT_ORDER).keys()].filter((name) => name !== 'Report').sort();
    const objects = Object.entries(definitions)
      .filter(([, definition]) => definition.properties !== undefined)
      .map(([name]) => name)
      .sort();
    expect(objects).toEqual(contract);
  });

  it('describes every field, and names the unit of every number', () => {
    const undescribed: string[] = [];
    const unitless: string[] = [];
    const visit = (properties: Record<string, SchemaNode>, at: string): void => {
      for (const [key, property] of Object.entries(properties)) {
        // A reference whose definition says the same as the property carries the text once, in the definition.
        const referenced = property.$ref === undefined ? undefined : definitions[property.$ref.replace('#/$defs/', '')];
        if (!property.description && !referenced?.description) undescribed.push(`${at}.${key}`);
        const types = [property.type ?? [], ...(property.anyOf ?? []).map((alternative) => alternative.type ?? [])].flat();
        if ((types.includes('number') || types.includes('integer') || key === 'schemaVersion') && !/Unit: [^.]+\./u.test(property.description ?? '')) {
          unitless.push(`${at}.${key}`);
        }
      }
    };
    visit(schema.properties ?? {}, 'Report');
    for (const [name, definition] of Object.entries(definitions)) visit(definition.properties ?? {}, name);
    expect(undescribed).toEqual([]);
    expect(unitless).toEqual([]);
  });

  it('matches a fully populated report key for key, in order, through every definition', () => {
    // Walks the JSON of the two fixtures in which every optional key is present somewhere and
    // every nullable object is non-null somewhere, beside the schema node that describes it.
    const visited = new Set<string>();
    const optionalSeen = new Set<string>();
    const walk = (value: unknown, node: SchemaNode, at: string): void => {
      if (node.$ref !== undefined) {
        const name = node.$ref.replace('#/$defs/', '');
        visited.add(name);
        walk(value, definitions[name]!, at);
        return;
      }
      if (node.anyOf !== undefined) {
        // `anyOf: [{$ref}, {type: null}]` is a nullable object; other anyOfs constrain scalars.
        const objectBranch = node.anyOf.find((branch) => branch.$ref !== undefined);
        if (value !== null && objectBranch !== undefined) walk(value, objectBranch, at);
        return;
      }
      if (Array.isArray(value) && node.items !== undefined) {
        value.forEach((item, index) => walk(item, node.items!, `${at}/${index}`));
        return;
      }
      if (node.properties !== undefined) {
        const object = value as Record<string, unknown>;
        const required = node.required ?? [];
        const expected = Object.keys(node.properties).filter((key) => required.includes(key) || Object.hasOwn(object, key));
        expect(Object.keys(object), at).toEqual(expected);
        for (const key of expected) if (!required.includes(key)) optionalSeen.add(key);
        for (const key of expected) walk(object[key], node.properties[key]!, `${at}/${key}`);
      }
    };
    walk(asJson(FINDINGS_AND_RECOMMENDATIONS), schema, '');
    walk(asJson(PLANNED_FLEET), schema, '');
    // The keys of sharing and of the minute series, on a copy: no hand-built fleet shares a GPU.
    const shared = structuredClone(PLANNED_FLEET);
    shared.gpus[0] = { ...shared.gpus[0]!, computeSeries: { start: '2026-11-24T00:00:00.000Z', bucketSeconds: 60, meanPct: [0, 12.5, null] } };
    shared.plan!.placements[0] = { ...shared.plan!.placements[0]!, sharing: { mode: 'time-slicing', with: ['trainer'], replicas: 2, nodeConfig: 'gpu-audit-time-slicing-2', resource: 'nvidia.com/gpu.shared' } };
    const latency = { count: 2100, meanSeconds: 0.4, p50Seconds: 0.344, p95Seconds: 1, p99Seconds: 1, aboveSeconds: 1 };
    const gauge = { mean: 1.5, max: 4 };
    shared.serving = [{
      server: 'vllm', instance: 'vllm node-a chat-0 llama', host: 'node-a', model: 'llama', namespace: 'serving', pod: 'chat-0', workload: 'chat-api',
      basis: 'window', scrapes: 4, windowSeconds: 5400, counterResets: 1, requests: 2100, failedRequests: 3, requestsPerSecond: 0.389,
      promptTokens: 21_000, generationTokens: 210_000, generationTokensPerSecond: 38.9, preemptions: 0,
      e2eLatency: latency, ttft: latency, tpot: latency, queueTime: latency, running: gauge, waiting: gauge, kvCacheUsagePct: gauge,
      costPer1000RequestsUsd: 1.25, costPer1000TokensUsd: 0.0125,
      intervalSeconds: 60,
      series: [{ start: '2026-11-24T00:00:00.000Z', requestsPerSecond: 0.5, generationTokensPerSecond: 50, e2eP95Seconds: 0.9, e2eP95Above: false, waitingMean: 1 }],
    }];
    shared.workloads[0] = {
      ...shared.workloads[0]!,
      serving: {
        servers: 1, intervalSeconds: 60, peakRequestsPerSecond: 0.5, peakAt: '2026-11-24T00:00:00.000Z', peakGenerationTokensPerSecond: 50,
        rampRequestsPerSecondPerMinute: 0.1, sloP95Ms: 1000,
        capacity: { requestsPerSecondPerGpu: 0.5, generationTokensPerSecondPerGpu: 50, p95Ms: 900, basis: 'approached', confidence: 'medium', intervalsWithinSlo: 1, intervalsOverSlo: 0 },
        capacityNote: '0.5 requests/s per GPU at p95 900 ms, near the 1000 ms SLO', requests: 2100,
        costPer1000RequestsUsd: 1.25, costPer1000RequestsAtCapacityUsd: 1, costPer1000TokensUsd: 0.0125, costPer1000TokensAtCapacityUsd: 0.01,
      },
    };
    const step = shared.plan!.steps.find((candidate) => candidate.config !== undefined) ?? shared.plan!.steps[0]!;
    step.config = { format: 'yaml', text: 'kind: ScaledObject\n', alternative: { note: 'without KEDA', format: 'yaml', text: 'kind: HorizontalPodAutoscaler\n' } };
    shared.sources[0] = { ...shared.sources[0]!, engine: 'Prometheus 3.1.0' };
    walk(asJson(shared), schema, '');
    const optionalKeys = [...contractNodes(REPORT_ORDER).values()].flatMap((node) => [...node.optional]);
    expect([...optionalSeen].sort()).toEqual([...new Set(optionalKeys)].sort());
    const objectDefinitions = Object.entries(definitions).filter(([, definition]) => definition.properties !== undefined).map(([name]) => name);
    expect([...visited].filter((name) => objectDefinitions.includes(name)).sort()).toEqual(objectDefinitions.sort());
  });
});
