import type { IncomingMessage, RequestListener } from 'node:http'
import { Webhook } from 'svix'

/** A push notification, as the app's own push service takes it. */
export interface Push {
  /** The app's own user id: the `custom_id` of the notification. */
  userId: string
  title: string
  body: string
  /** The web-view path the app opens when the push is tapped. */
  path: string
}

export interface WebhookReceiverOptions {
  /** The endpoint's signing secret, `whsec_…`. */
  secret: string
  /** Sends one push; a rejection makes the platform retry the whole delivery. */
  sendPush: (push: Push) => Promise<void>
}

interface Notification {
  title: string
  body: string
  path: string
  user_id: string
  custom_id: string | null
}

type Event =
  | { type: 'notifications.sent'; data: { notifications: Notification[] } }
  | { type: string; data: unknown }

const rememberedMessages = 10_000

/**
 * The backend's webhook endpoint: it verifies every request with the `svix` package (400 for a
 * bad signature or a stale timestamp), forwards each notification of `notifications.sent` to the
 * push sender, and acknowledges other event types. A message id already handled is acknowledged
 * without sending again: the platform retries with the same `svix-id`.
 */
export function createWebhookReceiver({
  secret,
  sendPush,
}: WebhookReceiverOptions): RequestListener {
  const webhook = new Webhook(secret)
  const handled = new Set<string>()
  const handle: (...args: Parameters<RequestListener>) => Promise<void> = async (req, res) => {
    const body = await readBody(req)
    const headers = {
      'svix-id': String(req.headers['svix-id'] ?? ''),
      'svix-timestamp': String(req.headers['svix-timestamp'] ?? ''),
      'svix-signature': String(req.headers['svix-signature'] ?? ''),
    }
    try {
      // svix 2 verifies and returns nothing: the body is parsed once it is known to be genuine.
      webhook.verify(body, headers)
    } catch {
      res.writeHead(400).end()
      return
    }
    const event = JSON.parse(body) as Event
    if (handled.has(headers['svix-id'])) {
      res.writeHead(204).end()
      return
    }
    try {
      if (event.type === 'notifications.sent') {
        const { notifications } = (event as Extract<Event, { type: 'notifications.sent' }>).data
        for (const n of notifications) {
          await sendPush({
            userId: n.custom_id ?? n.user_id,
            title: n.title,
            body: n.body,
            path: n.path,
          })
        }
      }
    } catch {
      res.writeHead(500).end()
      return
    }
    handled.add(headers['svix-id'])
    if (handled.size > rememberedMessages) handled.delete(handled.values().next().value ?? '')
    res.writeHead(204).end()
  }
  // A client that goes away mid-request must not become an unhandled rejection.
  return (req, res) => void handle(req, res).catch(() => res.destroy())
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}
