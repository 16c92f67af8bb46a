/**
 * Entry of the parse worker thread (started by parse-in-worker.ts). The CLI's bundle has it as
 * a second entry, dist/bundle/parse-worker.cjs (scripts/bundle.ts): the worker loads the
 * parsers and nothing else.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runParseJob } from './parse-job.js';
import type { ParseJob } from './protocol.js';

if (parentPort === null) throw new Error('parse-worker runs as a worker thread: see parse-in-worker.ts');
void runParseJob(workerData as ParseJob, parentPort);
