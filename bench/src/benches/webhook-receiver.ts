/**
 * Child process of the pipeline benchmark: a local webhook receiver. Answers 200 to every POST,
 * counts distinct deliveries (`webhook-id`), and tells the parent when the expected number has
 * arrived.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onParentMessage, toParent } from '../lib/child.ts';

let seen = new Set<string>();
let expected = Number.POSITIVE_INFINITY;
let total = 0;

const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    total += 1;
    const id = String(request.headers['webhook-id'] ?? total);
    if (!seen.has(id)) {
      seen.add(id);
      if (seen.size === expected) {
        toParent({
          type: 'reached',
          at: performance.timeOrigin + performance.now(),
          count: seen.size,
        });
      }
    }
    response.writeHead(200, { 'content-length': '0' });
    response.end();
  });
});
server.keepAliveTimeout = 60_000;

onParentMessage((message) => {
  if (message.type === 'expect') {
    seen = new Set();
    expected = Number(message.count);
  } else if (message.type === 'stats') {
    toParent({ type: 'stats', distinct: seen.size, total });
  }
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  toParent({ type: 'ready', url: `http://127.0.0.1:${port}/hooks` });
});
