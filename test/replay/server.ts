/**
 * A local replay server for the cloud SDKs: node:http (or https, for Azure Resource Manager,
 * whose SDK refuses to send a bearer token over plain http) on 127.0.0.1, port 0. Each
 * request is routed to a service by what the real SDK sends:
 *  - EC2: a form body with `Action=` (query protocol), region from the SigV4 credential scope;
 *  - Price List: the `X-Amz-Target: AWSPriceListService.<Operation>` header (JSON 1.1);
 *  - Savings Plans: `POST /<Operation>` (REST JSON), signed for us-east-1;
 *  - ARM: the path `/subscriptions/.../providers/Microsoft.Compute/skus`;
 *  - Retail Prices: the path `/api/retail/prices`, region from `$filter`.
 * Services answer from recorded bodies (aws-service.ts, azure-service.ts). Faults can be
 * injected per service, operation and region: throttling, expired credentials, a denied
 * region, a server error, an answer cut off midway through its body, or no answer at all
 * (to catch a client in the middle of a refresh).
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

export type ReplayService = 'ec2' | 'pricing' | 'savingsplans' | 'arm' | 'prices';

export interface ReplayRequest {
  service: ReplayService | 'unknown';
  operation: string;
  /** AWS region or Azure location the request is for, when the request says. */
  region: string | undefined;
  method: string;
  url: URL;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body: string;
}

export type ServiceHandler = (request: ReplayRequest, origin: string) => Reply;

export type FaultKind = 'throttle' | 'expired-token' | 'region-denied' | 'server-error' | 'abort-mid-body' | 'hang';

export interface Fault {
  service: ReplayService;
  kind: FaultKind;
  operation?: string;
  region?: string;
  /** How many matching requests get the fault; every one when absent. */
  times?: number;
}

export interface ReplayServerOptions {
  handlers: Partial<Record<ReplayService, ServiceHandler>>;
  /** Serve https with this key and certificate (needed by the Azure SDK's bearer policy). */
  tls?: { key: string; cert: string };
  /** Fault answers for each service (see aws-service.ts and azure-service.ts). */
  faults?: Partial<Record<ReplayService, Partial<Record<Exclude<FaultKind, 'abort-mid-body' | 'hang'>, Reply>>>>;
}

function credentialScopeRegion(authorization: string | undefined): string | undefined {
  // AWS4-HMAC-SHA256 Credential=AKID/20261129/eu-west-1/ec2/aws4_request, SignedHeaders=...
  return /Credential=[^/]+\/\d{8}\/([^/]+)\//.exec(authorization ?? '')?.[1];
}

function classify(method: string, url: URL, headers: http.IncomingHttpHeaders, body: string): Pick<ReplayRequest, 'service' | 'operation' | 'region'> {
  const target = headers['x-amz-target'];
  if (typeof target === 'string') return { service: 'pricing', operation: target.split('.').pop() ?? target, region: credentialScopeRegion(headers.authorization) };
  if (method === 'POST' && body.includes('Action=')) {
    return { service: 'ec2', operation: new URLSearchParams(body).get('Action') ?? '', region: credentialScopeRegion(headers.authorization) };
  }
  if (method === 'POST' && /^\/DescribeSavingsPlans\w*$/.test(url.pathname)) return { service: 'savingsplans', operation: url.pathname.slice(1), region: credentialScopeRegion(headers.authorization) };
  const filter = url.searchParams.get('$filter') ?? '';
  if (url.pathname.startsWith('/subscriptions/')) return { service: 'arm', operation: url.pathname.split('/').pop() ?? '', region: /location eq '([^']*)'/.exec(filter)?.[1] };
  if (url.pathname === '/api/retail/prices') return { service: 'prices', operation: 'RetailPrices', region: /armRegionName eq '([^']*)'/.exec(filter)?.[1] };
  return { service: 'unknown', operation: '', region: undefined };
}

export class ReplayServer {
  readonly requests: ReplayRequest[] = [];
  private readonly faults: (Fault & { remaining: number })[] = [];
  private readonly server: http.Server;
  private origin = '';

  private constructor(private readonly options: ReplayServerOptions) {
    const listener = (req: http.IncomingMessage, res: http.ServerResponse): void => this.handle(req, res);
    this.server = options.tls === undefined ? http.createServer(listener) : https.createServer({ key: options.tls.key, cert: options.tls.cert }, listener);
  }

  static async start(options: ReplayServerOptions): Promise<ReplayServer> {
    const replay = new ReplayServer(options);
    await new Promise<void>((resolve) => replay.server.listen(0, '127.0.0.1', resolve));
    const { port } = replay.server.address() as AddressInfo;
    replay.origin = `${options.tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`;
    return replay;
  }

  get url(): string {
    return this.origin;
  }

  inject(fault: Fault): void {
    this.faults.push({ ...fault, remaining: fault.times ?? Number.POSITIVE_INFINITY });
  }

  clearFaults(): void {
    this.faults.length = 0;
  }

  /** Requests of one service (and operation), for assertions on what the SDK sent. */
  requestsFor(service: ReplayService, operation?: string): ReplayRequest[] {
    return this.requests.filter((request) => request.service === service && (operation === undefined || request.operation === operation));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private takeFault(request: ReplayRequest): Fault | undefined {
    const fault = this.faults.find((candidate) => candidate.remaining > 0 && candidate.service === request.service
      && (candidate.operation === undefined || candidate.operation === request.operation)
      && (candidate.region === undefined || candidate.region === request.region));
    if (fault !== undefined) fault.remaining -= 1;
    return fault;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', this.origin);
      const request: ReplayRequest = { ...classify(req.method ?? 'GET', url, req.headers, body), method: req.method ?? 'GET', url, headers: req.headers, body };
      this.requests.push(request);
      const fault = request.service === 'unknown' ? undefined : this.takeFault(request);
      const handler = request.service === 'unknown' ? undefined : this.options.handlers[request.service];
      if (handler === undefined || request.service === 'unknown') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end(`replay server: no handler for ${request.method} ${url.pathname}`);
        return;
      }
      // No answer: the connection stays open until the client gives up or the server closes.
      if (fault?.kind === 'hang') return;
      if (fault !== undefined && fault.kind !== 'abort-mid-body') {
        const reply = this.options.faults?.[request.service]?.[fault.kind];
        if (reply === undefined) throw new Error(`replay server: no ${fault.kind} answer for ${request.service}`);
        this.send(res, reply, false);
        return;
      }
      this.send(res, handler(request, this.origin), fault?.kind === 'abort-mid-body');
    });
  }

  /** Writes a reply; with `abort`, only the first half of the body, then the connection is cut. */
  private send(res: http.ServerResponse, reply: Reply, abort: boolean): void {
    const body = Buffer.from(reply.body, 'utf8');
    res.writeHead(reply.status, { 'content-length': String(body.length), ...reply.headers });
    if (!abort) {
      res.end(body);
      return;
    }
    res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.socket?.destroy());
  }
}
