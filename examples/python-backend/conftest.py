"""Fixtures for a parallel suite on one shared mock: each test gets an organisation of its own (a
tenant), so that `pytest -n 4` workers never see each other's users, faults or calls. The mock's
URL is IDENTIFY_API_URL (the server, or its container in a CI service); WEBHOOK_RECEIVER_HOST is the
name the mock reaches this suite's webhook receivers at (this machine's loopback by default; in a
CI job whose mock is a container, this machine as the container sees it)."""

import json
import os
import time
import urllib.parse
import urllib.request

import pytest

from identify_client import IdentifyClient
from webhook_receiver import WebhookReceiver

BASE_URL = os.environ.get("IDENTIFY_API_URL", "http://127.0.0.1:4010")
RECEIVER_HOST = os.environ.get("WEBHOOK_RECEIVER_HOST", "127.0.0.1")


def control(method, path, body=None):
    """Calls a /__mock control endpoint; its JSON answer, or None for 204."""
    request = urllib.request.Request(
        BASE_URL + path,
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response) if response.status != 204 else None


def wait_for_mock(base_url=BASE_URL, seconds=30):
    """Waits until the mock answers its health check as the mock: a 200 from another server on the
    port (the mock not started yet, or gone) is not it. Raises after `seconds`."""
    deadline = time.monotonic() + seconds
    seen = "no answer"
    while True:
        try:
            with urllib.request.urlopen(base_url + "/__mock/health", timeout=5) as response:
                health = json.load(response)
            if health.get("status") == "ok" and health.get("name") == "identify-api-mock":
                return health
            seen = json.dumps(health)[:100]
        except (OSError, ValueError, AttributeError) as error:
            seen = str(error)
        if time.monotonic() > deadline:
            raise RuntimeError(f"{base_url} is not identify-api-mock after {seconds} s: {seen}")
        time.sleep(0.2)


@pytest.fixture(scope="session", autouse=True)
def mock_ready():
    """The session starts once the mock answers as the mock (it may still be starting)."""
    return wait_for_mock()


class Tenant:
    """An organisation created for one test, and the controls that touch only it."""

    def __init__(self, users=()):
        created = control("POST", "/__mock/organisations", {"users": list(users)})
        self.org_id = created["orgId"]
        self.api_key = created["apiKey"]

    def fail_next(self, operation, status, **scope):
        """Makes this tenant's next call of `operation` (for user `id`, if given) answer `status`."""
        control("POST", "/__mock/faults", {"operation": operation, "status": status, "orgId": self.org_id, **scope})

    def calls(self):
        """This tenant's API calls, oldest first."""
        query = urllib.parse.urlencode({"orgId": self.org_id})
        return [entry for entry in control("GET", f"/__mock/requests?{query}") if "operation" in entry]

    def user(self, user_id):
        """A user as the mock holds it."""
        query = urllib.parse.urlencode({"orgId": self.org_id, "id": user_id})
        return control("GET", f"/__mock/user?{query}")

    def freeze_clock(self, at):
        """Stops this tenant's clock at `at` (ISO 8601); no other tenant's time moves."""
        return control("PUT", f"/__mock/organisations/{self._path_id}/clock", {"frozenAt": at})

    def advance_clock(self, ms):
        """Moves this tenant's clock on by `ms`; the webhook retries then due are made first."""
        return control("POST", f"/__mock/organisations/{self._path_id}/clock/advance", {"ms": ms})

    def add_webhook(self, url):
        """Registers an endpoint of this tenant's own: it receives this organisation's events only.
        The answer, with the endpoint's `secret` (shown by this answer alone)."""
        return control("POST", "/__mock/webhooks", {"url": url, "orgId": self.org_id})

    def raise_event(self, event_type, user_id):
        """Raises an event of this tenant's user; the event as the mock answers it, with its `id`."""
        return control("POST", "/__mock/events", {"type": event_type, "orgId": self.org_id, "id": user_id})

    def deliveries(self):
        """The deliveries to this tenant's endpoints, oldest first."""
        query = urllib.parse.urlencode({"orgId": self.org_id})
        return control("GET", f"/__mock/webhooks/deliveries?{query}")

    def reset(self):
        """Back to what it was created with; its calls and faults forgotten."""
        control("POST", "/__mock/reset", {"orgId": self.org_id})

    def remove(self):
        control("DELETE", f"/__mock/organisations/{self._path_id}")

    @property
    def _path_id(self):
        return urllib.parse.quote(self.org_id, safe="")


@pytest.fixture
def tenant():
    created = Tenant(users=[{"id": "archived", "registrationStatus": "archived"}])
    yield created
    created.remove()


@pytest.fixture
def client(tenant):
    return IdentifyClient(BASE_URL, tenant.api_key, tenant.org_id)


@pytest.fixture
def receiver():
    """A webhook receiver of the test's own, at a `url` the mock reaches."""
    with WebhookReceiver(RECEIVER_HOST) as started:
        yield started
