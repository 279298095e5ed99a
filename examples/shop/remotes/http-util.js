'use strict';
// Small helpers the two pretend remotes share: read a JSON body, answer JSON, listen and say where.

/** Reads the request body as JSON (`{}` when empty); rejects on malformed JSON. */
async function readJson(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : {};
}

function send(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Listens on PORT (0: any) and prints one JSON line `{ msg: 'listening', url }` for whoever started it. */
function listen(server, name) {
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    const { port } = server.address();
    process.stdout.write(`${JSON.stringify({ msg: 'listening', service: name, url: `http://127.0.0.1:${port}` })}\n`);
  });
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

module.exports = { readJson, send, listen };
