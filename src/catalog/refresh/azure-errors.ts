/**
 * What an Azure SDK or credential error means for a refresh. The pipeline has already
 * retried throttling (429 with Retry-After) and transient failures within `maxRetries`.
 */
import { safeMessage } from './redact.js';

/** What the SDK says when it has nothing more than the status. */
const GENERIC_SDK_MESSAGE = /unexpected status ?code/i;

export type AzureErrorKind = 'credentials' | 'other';

export interface AzureErrorFacts {
  kind: AzureErrorKind;
  code: string;
  status: number | undefined;
  /** One safe line. */
  detail: string;
}

/**
 * @azure/identity's error classes: no source of the chain could produce a token, or the
 * identity provider refused to sign in. Both are about the credential, not the request.
 */
const CREDENTIAL_ERROR_NAMES: Readonly<Record<string, string>> = {
  CredentialUnavailableError: 'no source of the credential chain could sign in',
  AggregateAuthenticationError: 'every source of the credential chain failed to sign in',
  AuthenticationError: 'the identity provider refused to sign in',
  AuthenticationRequiredError: 'interactive sign-in is required',
};

interface AzureErrorShape {
  name?: unknown;
  code?: unknown;
  /** RestError (ARM). */
  statusCode?: unknown;
  /** HttpStatusError (the anonymous prices API: its 401 says nothing about our credentials). */
  status?: unknown;
  message?: unknown;
  /** ARM's error body, `{ error: { code, message } }`, as the SDK attaches it. */
  details?: { error?: { message?: unknown } };
}

export function azureErrorFacts(error: unknown): AzureErrorFacts {
  const shape: AzureErrorShape = typeof error === 'object' && error !== null ? (error as AzureErrorShape) : {};
  const name = typeof shape.name === 'string' ? shape.name : 'Error';
  const armStatus = typeof shape.statusCode === 'number' ? shape.statusCode : undefined;
  const status = armStatus ?? (typeof shape.status === 'number' ? shape.status : undefined);
  const code = typeof shape.code === 'string' ? shape.code : name;
  const identityProblem = CREDENTIAL_ERROR_NAMES[name];
  if (identityProblem !== undefined) return { kind: 'credentials', code: name, status, detail: `${name}: ${identityProblem}` };
  // ARM answers 401 for a missing, expired or wrong-tenant token (ExpiredAuthenticationToken, InvalidAuthenticationToken...).
  if (armStatus === 401) return { kind: 'credentials', code, status, detail: code };
  // The service's words when the SDK kept them; a paged list keeps only the code and says
  // "Pagination failed with unexpected statusCode 400", which adds nothing to the code.
  const serviceMessage = shape.details?.error?.message;
  const sdkMessage = typeof shape.message === 'string' && !GENERIC_SDK_MESSAGE.test(shape.message) ? shape.message : undefined;
  const message = typeof serviceMessage === 'string' ? serviceMessage : sdkMessage;
  if (message === undefined) return { kind: 'other', code, status, detail: code };
  return { kind: 'other', code, status, detail: safeMessage(code === name ? message : `${code}: ${message}`) };
}

export function azureCredentialRejectedMessage(credentialSource: string, facts: AzureErrorFacts): string {
  return `Azure credentials from ${credentialSource} were rejected (${facts.detail})`;
}
