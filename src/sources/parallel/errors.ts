/**
 * Errors across the thread boundary. An InputError thrown while parsing in the worker is
 * thrown again on the main thread as the same InputError (message, file, location), so the CLI
 * prints the same one line and exits 2, as when the parse runs on the main thread. Anything
 * else is a bug and keeps its name, message and the worker's stack.
 */
import { InputError } from '../../support/index.js';
import type { SerializedError } from './protocol.js';

export function serializeError(error: unknown): SerializedError {
  if (error instanceof InputError) return { kind: 'input', message: error.message, file: error.file, location: error.location };
  if (error instanceof Error) return { kind: 'internal', name: error.name, message: error.message, stack: error.stack };
  return { kind: 'internal', name: 'Error', message: String(error), stack: undefined };
}

export function deserializeError(error: SerializedError): Error {
  if (error.kind === 'input') return new InputError(error.message, { file: error.file, location: error.location });
  const rebuilt = new Error(error.message);
  rebuilt.name = error.name;
  if (error.stack !== undefined) rebuilt.stack = error.stack;
  return rebuilt;
}
