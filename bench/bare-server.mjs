// The Node limit the standalone server is measured against: a bare `node:http` server answering
// every request with one fixed JSON body (given as the first argument), after reading the
// request body as any server must. Plain JavaScript, so that its start-up pays no TypeScript.
import { createServer } from 'node:http'

const body = process.argv[2] ?? '{"status":"ok"}'
const length = Buffer.byteLength(body)
const server = createServer((req, res) => {
  req.resume()
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': length })
    res.end(body)
  })
})
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })}\n`)
})
process.on('SIGTERM', () => process.exit(0))
