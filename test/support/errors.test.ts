/** Upstream errors name their endpoint, never the credentials a URL may carry. */
import { describe, expect, it } from 'vitest';
import { maskUrlCredentials, UpstreamError } from '../../src/support/index.js';

describe('maskUrlCredentials', () => {
  it('hides the user and password of any URL in a text, and leaves other text as it is', () => {
    expect(maskUrlCredentials('http://user:PASS@127.0.0.1:9: refused')).toBe('http://[redacted]@127.0.0.1:9: refused');
    expect(maskUrlCredentials('see https://token@prom.example.com/api and mail me@example.com')).toBe('see https://[redacted]@prom.example.com/api and mail me@example.com');
    expect(maskUrlCredentials('https://prom.example.com/api/v1/query?x=a@b')).toBe('https://prom.example.com/api/v1/query?x=a@b');
  });

  it('applies to every UpstreamError line', () => {
    const error = new UpstreamError('ECONNREFUSED reaching http://u:p@10.0.0.1:8080', { endpoint: 'http://u:p@10.0.0.1:8080', status: 503 });
    expect(error.describe()).toBe('http://[redacted]@10.0.0.1:8080 (HTTP 503): ECONNREFUSED reaching http://[redacted]@10.0.0.1:8080');
  });
});
