/**
 * The embedded database's own thread: PGlite runs here, so that its statements (WebAssembly,
 * synchronous while they run) never hold up HTTP parsing, timers or the queue on the main
 * thread. Requests are answered in order, one statement at a time, as PGlite runs them.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { ownerOnlyChmodsInThisThread } from '../data-dir-modes.ts';
import { INT8_OID, parseInt8 } from '../int8.ts';
import { errorFields, type Reply, type Request, type StartData, type Started } from './protocol.ts';

const port = parentPort;
if (!port) throw new Error('pglite-thread/worker.ts runs as a worker thread');
const { directory } = workerData as StartData;

const say = (message: Started | Reply): void => port.postMessage(message);

// The data directory is the owner's only: PGlite's own chmods keep no group or other bit.
ownerOnlyChmodsInThisThread();

let pglite: PGlite;
try {
  pglite = await PGlite.create(directory, { parsers: { [INT8_OID]: parseInt8 } });
  // PGlite has no checkpointer to recycle WAL segments ahead of time: each new 16 MB segment
  // is created by the statement that crosses into it, and zero-filling it took that statement
  // 40-57 ms (every ~4 s at 3,600 posts/s). A segment created sparse reads as zeros all the same.
  await pglite.exec('set wal_init_zero = off');
  say({ op: 'ready' });
} catch (error) {
  say({ op: 'failed', error: errorFields(error) });
  port.close();
  throw error;
}

port.on('message', async (request: Request) => {
  if (request.op === 'close') {
    try {
      if (!pglite.closed) await pglite.close();
      say({ id: request.id, ok: true, rows: [], affectedRows: null });
    } catch (error) {
      say({ id: request.id, ok: false, error: errorFields(error) });
    }
    port.close();
    return;
  }
  try {
    const result = await pglite.query<Record<string, unknown>>(request.sql, [...request.params], {
      rowMode: 'object',
    });
    say({ id: request.id, ok: true, rows: result.rows, affectedRows: result.affectedRows ?? null });
  } catch (error) {
    say({ id: request.id, ok: false, error: errorFields(error) });
  }
});
