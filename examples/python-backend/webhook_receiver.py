"""A Python backend's receiver of the platform's webhooks, with the standard library only: each
delivery (Svix's headers) is verified with its endpoint's secret before its event is kept."""

import base64
import hashlib
import hmac
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOLERANCE_SECONDS = 5 * 60


class InvalidWebhook(Exception):
    """A delivery whose headers, signature or timestamp do not hold: answered 400, never kept."""


def verify(secret, headers, body, now=None):
    """The delivered event, once its `svix-signature` holds: a `v1,<base64>` entry equal to the
    HMAC-SHA256 of `{svix-id}.{svix-timestamp}.{body}` keyed with the base64 after `whsec_` of
    `secret`, and `svix-timestamp` within 5 minutes of `now` (the system's time)."""
    message_id = headers.get("svix-id")
    timestamp = headers.get("svix-timestamp")
    signatures = headers.get("svix-signature")
    if not (secret and message_id and timestamp and signatures):
        raise InvalidWebhook("missing svix-id, svix-timestamp or svix-signature")
    if not timestamp.isdigit():
        raise InvalidWebhook(f"svix-timestamp is not a Unix time: {timestamp[:20]}")
    if abs((time.time() if now is None else now) - int(timestamp)) > TOLERANCE_SECONDS:
        raise InvalidWebhook("svix-timestamp is more than 5 minutes away")
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{message_id}.{timestamp}.".encode() + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    given = [entry[3:] for entry in signatures.split() if entry.startswith("v1,")]
    if not any(hmac.compare_digest(expected, signature) for signature in given):
        raise InvalidWebhook("no svix-signature matches the endpoint's secret")
    return json.loads(body)


class WebhookReceiver:
    """A receiver on a port of its own (`http.server` in a thread), at `url` for a sender that
    reaches this machine as `host` (on loopback only when that is loopback): a delivery that
    verifies with `secret` is kept in `events` as `(svix-id, event)` and answered 204; any other is
    kept in `rejected` and answered 400 (so the sender retries it)."""

    def __init__(self, host="127.0.0.1"):
        self.secret = None
        self.events = []
        self.rejected = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                try:
                    event = verify(receiver.secret, self.headers, body)
                except (InvalidWebhook, ValueError) as error:
                    receiver.rejected.append((self.headers.get("svix-id"), str(error)))
                    self.send_response(400)
                else:
                    receiver.events.append((self.headers["svix-id"], event))
                    self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1" if host == "127.0.0.1" else "0.0.0.0", 0), Handler)
        self.url = f"http://{host}:{self._server.server_address[1]}/webhooks"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._server.shutdown()
        self._server.server_close()
