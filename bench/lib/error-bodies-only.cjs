'use strict';

/**
 * autocannon's `setupClient` (a plain CommonJS file, so its worker threads can `require` it too): keep the
 * body of non-2xx answers only.
 *
 * autocannon appends every chunk of every answer to a string (`req.body += chunk`). For a compressed answer
 * that is UTF-8 decoding of binary data, which is slow: against a bare Fastify sending 9 KB, one autocannon
 * thread reads 55–63k answers/s of ASCII but 8.5–9.1k/s of random bytes (a brotli body). The groups list
 * (8.9 KB of brotli) was then measuring the load generator, which also took the CPU the fleet runs on. A
 * browser or an HTTP library keeps the bytes as they come; the report only needs the text of failures.
 */
module.exports = function errorBodiesOnly(client) {
  const queue = client.pipelinedRequests;
  const setHeaders = queue.setHeaders.bind(queue);
  queue.setHeaders = (headers) => {
    setHeaders(headers);
    const req = queue.peek();
    if (req) req.keepBody = headers.statusCode < 200 || headers.statusCode >= 300;
  };
  queue.addBody = (chunk) => {
    const req = queue.peek();
    if (req && req.keepBody) req.body += chunk;
  };
};
