/**
 * EC2 query-protocol XML from the SDK's JSON shape, so the replay server can answer the real
 * EC2 client with the values of recordings that were stored as JSON
 * (../shared/corpus/aws/ec2-describe-*.json, moto's DescribeInstanceTypes items).
 *
 * Wire rules (EC2 API reference, API version 2016-11-15; ../shared/catalog/SOURCES.md §3):
 *  - the root is `<{Action}Response xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">` with a
 *    `<requestId>` first;
 *  - member names are lowerCamel (`VCpuInfo` -> `vCpuInfo`, `SizeInMiB` -> `sizeInMiB`) except
 *    where the API names the element otherwise (XML_NAMES: the plural lists that end in `Set`);
 *  - every list is a wrapper element with one `<item>` per entry;
 *  - timestamps are ISO 8601 in UTC with milliseconds.
 * test/catalog/aws-wire.test.ts checks the conversion by reading it back through the real SDK.
 */

/** JSON member -> XML element where the API does not use the lowerCamel name. */
export const XML_NAMES: Readonly<Record<string, string>> = {
  InstanceTypes: 'instanceTypeSet',
  Workloads: 'workloadSet',
  EbsCards: 'ebsCardSet',
  InterfaceTypes: 'interfaceTypeSet',
  SpotPriceHistory: 'spotPriceHistorySet',
};

/** Members whose JSON value is a timestamp string. */
const TIMESTAMP_MEMBERS: ReadonlySet<string> = new Set(['Timestamp']);

export const EC2_XML_NAMESPACE = 'http://ec2.amazonaws.com/doc/2016-11-15/';

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function xmlNameOf(member: string): string {
  return XML_NAMES[member] ?? member.charAt(0).toLowerCase() + member.slice(1);
}

function scalarText(member: string, value: string | number | boolean): string {
  if (TIMESTAMP_MEMBERS.has(member) && typeof value === 'string') return new Date(value).toISOString();
  return String(value);
}

function valueXml(member: string, value: unknown): string {
  if (Array.isArray(value)) return value.map((entry) => `<item>${valueXml(member, entry)}</item>`).join('');
  if (typeof value === 'object' && value !== null) return structureXml(value as Record<string, unknown>);
  return escapeXml(scalarText(member, value as string | number | boolean));
}

/** The members of one structure; null and undefined members are left out, as on the wire. */
export function structureXml(structure: Record<string, unknown>): string {
  return Object.entries(structure)
    .filter(([, value]) => value !== null && value !== undefined)
    .map(([member, value]) => {
      const name = xmlNameOf(member);
      return `<${name}>${valueXml(member, value)}</${name}>`;
    })
    .join('');
}

/** A whole EC2 answer, e.g. `ec2Response('DescribeInstanceTypes', { InstanceTypes: [...], NextToken: 'x' }, 'req-1')`. */
export function ec2Response(action: string, result: Record<string, unknown>, requestId: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${action}Response xmlns="${EC2_XML_NAMESPACE}"><requestId>${escapeXml(requestId)}</requestId>${structureXml(result)}</${action}Response>`;
}

/** An EC2 error answer: `<Response><Errors><Error><Code>…` (the query protocol's error envelope). */
export function ec2ErrorResponse(code: string, message: string, requestId: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>${escapeXml(code)}</Code><Message>${escapeXml(message)}</Message></Error></Errors><RequestID>${escapeXml(requestId)}</RequestID></Response>`;
}
