/**
 * A small Chrome DevTools Protocol client over a WebSocket written on `node:http`'s upgrade
 * (Node 20 has no global WebSocket and the project takes no `ws` dependency). It speaks just
 * what CDP needs: masked text frames out; text, continuation, ping and close frames in.
 * Every call is bounded by a timeout.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';

const OPCODE_CONTINUATION = 0x0;
const OPCODE_TEXT = 0x1;
const OPCODE_CLOSE = 0x8;
const OPCODE_PING = 0x9;
const OPCODE_PONG = 0xa;

/** One client frame: FIN set, masked as RFC 6455 requires of clients. */
function encodeFrame(opcode: number, payload: Buffer): Buffer {
  const mask = randomBytes(4);
  const length = payload.length;
  const header = length < 126 ? Buffer.from([0x80 | opcode, 0x80 | length])
    : length < 65_536 ? Buffer.from([0x80 | opcode, 0x80 | 126, length >> 8, length & 0xff])
      : Buffer.concat([Buffer.from([0x80 | opcode, 0x80 | 127]), (() => { const size = Buffer.alloc(8); size.writeBigUInt64BE(BigInt(length)); return size; })()]);
  const masked = Buffer.alloc(length);
  for (let i = 0; i < length; i += 1) masked[i] = payload[i]! ^ mask[i % 4]!;
  return Buffer.concat([header, mask, masked]);
}

interface Frame {
  fin: boolean;
  opcode: number;
  payload: Buffer;
}

/** Splits complete server frames (unmasked) off the front of `buffer`. */
function decodeFrames(buffer: Buffer): { frames: Frame[]; rest: Buffer } {
  const frames: Frame[] = [];
  let offset = 0;
  for (;;) {
    if (buffer.length - offset < 2) break;
    const first = buffer[offset]!;
    const second = buffer[offset + 1]!;
    let length = second & 0x7f;
    let headerLength = 2;
    if (length === 126) {
      if (buffer.length - offset < 4) break;
      length = buffer.readUInt16BE(offset + 2);
      headerLength = 4;
    } else if (length === 127) {
      if (buffer.length - offset < 10) break;
      length = Number(buffer.readBigUInt64BE(offset + 2));
      headerLength = 10;
    }
    const maskLength = (second & 0x80) !== 0 ? 4 : 0;
    const end = offset + headerLength + maskLength + length;
    if (buffer.length < end) break;
    let payload = buffer.subarray(offset + headerLength + maskLength, end);
    if (maskLength > 0) {
      const mask = buffer.subarray(offset + headerLength, offset + headerLength + 4);
      payload = Buffer.from(payload.map((byte, i) => byte ^ mask[i % 4]!));
    }
    frames.push({ fin: (first & 0x80) !== 0, opcode: first & 0x0f, payload });
    offset = end;
  }
  return { frames, rest: buffer.subarray(offset) };
}

export interface CdpEvent {
  method: string;
  params: Record<string, unknown>;
}

interface Pending {
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export class DevToolsSession {
  readonly events: CdpEvent[] = [];
  private readonly pending = new Map<number, Pending>();
  private readonly waiters: { method: string; resolve: (event: CdpEvent) => void }[] = [];
  private nextId = 1;
  private buffer: Buffer = Buffer.alloc(0);
  private message: Buffer[] = [];

  private constructor(private readonly socket: Duplex) {
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('close', () => this.failAll(new Error('DevTools socket closed')));
    socket.on('error', (error) => this.failAll(error));
  }

  static connect(webSocketUrl: string, timeoutMs: number): Promise<DevToolsSession> {
    const url = new URL(webSocketUrl);
    return new Promise((resolve, reject) => {
      const request = http.request({
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        timeout: timeoutMs,
        headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': randomBytes(16).toString('base64') },
      });
      request.on('upgrade', (_response, socket, head) => {
        const session = new DevToolsSession(socket);
        if (head.length > 0) session.receive(head);
        resolve(session);
      });
      request.on('response', (response) => reject(new Error(`DevTools refused the WebSocket upgrade: HTTP ${response.statusCode}`)));
      request.on('timeout', () => request.destroy(new Error('DevTools WebSocket upgrade timed out')));
      request.on('error', reject);
      request.end();
    });
  }

  send(method: string, params: Record<string, unknown> = {}, timeoutMs = 15_000): Promise<Record<string, unknown>> {
    const id = this.nextId;
    this.nextId += 1;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`DevTools ${method} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.socket.write(encodeFrame(OPCODE_TEXT, Buffer.from(JSON.stringify({ id, method, params }))));
    });
  }

  /** The first event `method` after this call. */
  waitFor(method: string, timeoutMs: number): Promise<CdpEvent> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${method} within ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push({ method, resolve: (event) => { clearTimeout(timer); resolve(event); } });
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private receive(chunk: Buffer): void {
    const { frames, rest } = decodeFrames(Buffer.concat([this.buffer, chunk]));
    this.buffer = rest;
    for (const frame of frames) {
      if (frame.opcode === OPCODE_PING) this.socket.write(encodeFrame(OPCODE_PONG, frame.payload));
      else if (frame.opcode === OPCODE_CLOSE) this.socket.end();
      else if (frame.opcode === OPCODE_TEXT || frame.opcode === OPCODE_CONTINUATION) {
        this.message.push(frame.payload);
        if (frame.fin) {
          const text = Buffer.concat(this.message).toString('utf8');
          this.message = [];
          this.dispatch(JSON.parse(text) as { id?: number; result?: Record<string, unknown>; error?: { message: string }; method?: string; params?: Record<string, unknown> });
        }
      }
    }
  }

  private dispatch(message: { id?: number; result?: Record<string, unknown>; error?: { message: string }; method?: string; params?: Record<string, unknown> }): void {
    if (message.id !== undefined) {
      const pending = this.pending.get(message.id);
      if (pending === undefined) return;
      this.pending.delete(message.id);
      clearTimeout(pending.timer);
      if (message.error !== undefined) pending.reject(new Error(`DevTools: ${message.error.message}`));
      else pending.resolve(message.result ?? {});
      return;
    }
    if (message.method === undefined) return;
    const event = { method: message.method, params: message.params ?? {} };
    this.events.push(event);
    for (let i = this.waiters.length - 1; i >= 0; i -= 1) {
      if (this.waiters[i]!.method === event.method) this.waiters.splice(i, 1)[0]!.resolve(event);
    }
  }

  private failAll(error: Error): void {
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      pending.reject(error);
      this.pending.delete(id);
    }
  }
}
