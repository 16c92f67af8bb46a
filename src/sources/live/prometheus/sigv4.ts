/**
 * `--prometheus-sigv4 REGION`: AWS Signature Version 4 on every request, as Amazon Managed
 * Service for Prometheus requires (service `aps`). Signed with the AWS SDK's own signer
 * (`@smithy/signature-v4`, an optional dependency, loaded only here). Credentials: the
 * environment's AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (with AWS_SESSION_TOKEN) where
 * set, else the SDK's default chain (profile, SSO, web identity, instance role).
 */
import { InputError, loadOptionalModules } from '../../../support/index.js';

/** What is signed: the request exactly as sent. */
export interface UnsignedRequest {
  method: 'GET' | 'POST';
  url: URL;
  headers: Readonly<Record<string, string>>;
  body: string;
}

/** The headers to send: those given, with `host`, the date, the session token and `authorization` added. */
export type RequestSigner = (request: UnsignedRequest) => Promise<Record<string, string>>;

/** The AWS service name of Amazon Managed Service for Prometheus's query API. */
export const AMP_SERVICE = 'aps';

const SIGNER_MODULES = ['@smithy/signature-v4', '@aws-crypto/sha256-js', '@aws-sdk/credential-provider-node'];

export async function sigV4Signer(region: string, env: NodeJS.ProcessEnv): Promise<RequestSigner> {
  const [{ SignatureV4 }, { Sha256 }, { defaultProvider }] = await loadOptionalModules(
    () => Promise.all([import('@smithy/signature-v4'), import('@aws-crypto/sha256-js'), import('@aws-sdk/credential-provider-node')]),
    SIGNER_MODULES,
    '--prometheus-sigv4',
  );
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  const credentials = accessKeyId !== undefined && accessKeyId !== '' && secretAccessKey !== undefined && secretAccessKey !== ''
    ? { accessKeyId, secretAccessKey, ...(env.AWS_SESSION_TOKEN === undefined || env.AWS_SESSION_TOKEN === '' ? {} : { sessionToken: env.AWS_SESSION_TOKEN }) }
    : defaultProvider();
  const signer = new SignatureV4({ credentials, region, service: AMP_SERVICE, sha256: Sha256, uriEscapePath: true, applyChecksum: true });
  return async ({ method, url, headers, body }) => {
    // A repeated parameter (`match[]`) is signed as the list it is.
    const query: Record<string, string | string[]> = {};
    for (const name of new Set(url.searchParams.keys())) {
      const values = url.searchParams.getAll(name);
      query[name] = values.length === 1 ? values[0]! : values;
    }
    const signed = await signer.sign({
      method,
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port === '' ? {} : { port: Number(url.port) }),
      path: url.pathname,
      query,
      headers: { ...headers, host: url.host },
      body,
    }).catch((error: unknown) => {
      // No credentials anywhere in the chain is a setup problem, named as one (exit 2).
      if ((error as Error).name === 'CredentialsProviderError') throw new InputError(`--prometheus-sigv4: no AWS credentials (${(error as Error).message}): set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or run where a role is available`);
      throw error;
    });
    return signed.headers;
  };
}
