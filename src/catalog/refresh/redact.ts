/**
 * Error text from SDKs and services ends up in the terminal and in CI logs. Messages built
 * here never include credentials on purpose; this is the second line of defence for text
 * that comes from elsewhere (a service's own error message, a network error).
 */
import { maskUrlCredentials } from '../../support/index.js';

const SECRET_PATTERNS: readonly (readonly [RegExp, string])[] = [
  // AWS access key ids (long-term AKIA, temporary ASIA).
  [/\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g, '[redacted key id]'],
  // SigV4 pieces that can be echoed in a message.
  [/(Signature|X-Amz-Signature)=[0-9a-f]+/gi, '$1=[redacted]'],
  [/(X-Amz-Security-Token|X-Amz-Credential)=[^&\s]+/gi, '$1=[redacted]'],
  [/(Credential=)[^,\s]+/g, '$1[redacted]'],
  // OAuth bearer tokens and JWTs.
  [/\bBearer\s+[^\s"',]+/gi, 'Bearer [redacted]'],
  [/\beyJ[\w-]+\.[\w-]+\.[\w-]*/g, '[redacted token]'],
];

const MAX_MESSAGE_LENGTH = 300;

/** One line, at most 300 characters, with anything that looks like a credential removed. */
export function safeMessage(text: string): string {
  let result = maskUrlCredentials(text.replace(/\s+/g, ' ').trim());
  for (const [pattern, replacement] of SECRET_PATTERNS) result = result.replace(pattern, replacement);
  return result.length > MAX_MESSAGE_LENGTH ? `${result.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : result;
}
