/**
 * Entry of the parse worker thread (started by parse-in-worker.ts and parse-in-blocks.ts). The
 * CLI's bundle has it as a second entry, dist/bundle/parse-worker.cjs (scripts/bundle.ts): the
 * worker loads the parsers and nothing else.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runBlockJob, runParseJob } from './parse-job.js';
import type { BlockJob, ParseJob } from './protocol.js';

if (parentPort === null) throw new Error('parse-worker runs as a worker thread: see parse-in-worker.ts');
const job = workerData as ParseJob | BlockJob;
if ('kind' in job && job.kind === 'blocks') runBlockJob(job, parentPort);
else void runParseJob(job, parentPort);
