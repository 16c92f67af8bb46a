/**
 * What an AWS SDK error means for a refresh. The SDK has already retried throttling and
 * transient failures (bounded by `maxAttempts`); what reaches here is final for that call.
 */
import { safeMessage } from './redact.js';

export type AwsErrorKind = 'credentials' | 'other';

/**
 * Codes with which AWS (or the SDK's credential chain) rejects the caller's identity, as
 * opposed to the request. Data rather than branches: a new code is a new entry.
 */
const CREDENTIAL_ERROR_CODES: ReadonlySet<string> = new Set([
  'ExpiredToken',
  'ExpiredTokenException',
  'RequestExpired',
  'AuthFailure',
  'InvalidClientTokenId',
  'UnrecognizedClientException',
  'SignatureDoesNotMatch',
  'IncompleteSignature',
  'InvalidSignatureException',
  'MissingAuthenticationToken',
  'InvalidAccessKeyId',
  'CredentialsProviderError',
  'TokenProviderError',
]);

/** Extra words for codes whose usual cause is not the credentials themselves. */
const CREDENTIAL_HINTS: Readonly<Record<string, string>> = {
  AuthFailure: 'EC2 also answers AuthFailure for a region that is not enabled for the account',
  RequestExpired: 'check this machine\'s clock',
  CredentialsProviderError: 'no credentials were found',
};

export interface AwsErrorFacts {
  kind: AwsErrorKind;
  code: string;
  status: number | undefined;
  /** One safe line: the code and, for non-credential errors, the service's words. */
  detail: string;
}

interface SdkErrorShape {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  $metadata?: { httpStatusCode?: unknown };
}

export function awsErrorFacts(error: unknown): AwsErrorFacts {
  const shape: SdkErrorShape = typeof error === 'object' && error !== null ? (error as SdkErrorShape) : {};
  const code = typeof shape.name === 'string' && shape.name !== 'Error' ? shape.name : typeof shape.code === 'string' ? shape.code : 'Error';
  const status = typeof shape.$metadata?.httpStatusCode === 'number' ? shape.$metadata.httpStatusCode : undefined;
  const message = typeof shape.message === 'string' ? shape.message : String(error);
  if (CREDENTIAL_ERROR_CODES.has(code)) {
    const hint = CREDENTIAL_HINTS[code];
    // The service's own words are left out: some services echo signing details in them.
    return { kind: 'credentials', code, status, detail: hint === undefined ? code : `${code}; ${hint}` };
  }
  return { kind: 'other', code, status, detail: safeMessage(code === 'Error' ? message : `${code}: ${message}`) };
}

/** "AWS credentials from the default chain were rejected (ExpiredToken)". */
export function credentialRejectedMessage(credentialSource: string, facts: AwsErrorFacts): string {
  return `AWS credentials from ${credentialSource} were rejected (${facts.detail})`;
}
