"""The backend's webhook receiver tested against the shared mock, in parallel (`pytest -n 4`): each
test's tenant registers a receiver of its own (an endpoint with its `orgId`) and raises its own
events, and its receiver gets exactly those, verified with its endpoint's secret: none of another
worker's tenant, nor of the neighbour each test raises events beside."""

import base64
import time

import pytest

from conftest import RECEIVER_HOST, Tenant
from webhook_receiver import WebhookReceiver

EVENT_TYPES = ("notifications.sent", "user.course.started")


def wait_until(check, what, seconds=30):
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {seconds} s")
        time.sleep(0.05)


def delivered(tenant, count):
    deliveries = tenant.deliveries()
    return len(deliveries) == count and all(delivery["delivered"] for delivery in deliveries)


@pytest.mark.parametrize("attempt", range(8))
def test_a_tenants_receiver_gets_exactly_its_own_deliveries(tenant, client, receiver, attempt):
    # Another tenant on the same server, with the same user id and a receiver of its own, raising
    # its events first: a receiver that got every organisation's would get these before its own.
    neighbour = Tenant(users=[{"id": "ada", "registrationStatus": "registered"}])
    try:
        with WebhookReceiver(RECEIVER_HOST) as theirs:
            receiver.secret = tenant.add_webhook(receiver.url)["secret"]
            theirs.secret = neighbour.add_webhook(theirs.url)["secret"]
            client.identify("ada")
            their_ids = [neighbour.raise_event(event_type, "ada")["id"] for event_type in EVENT_TYPES]
            my_ids = [tenant.raise_event(event_type, "ada")["id"] for event_type in EVENT_TYPES]
            wait_until(lambda: len(receiver.events) >= 2 and len(theirs.events) >= 2, "2 deliveries each")
            assert [(message_id, event["type"]) for message_id, event in receiver.events] == list(
                zip(my_ids, EVENT_TYPES)
            )
            assert [message_id for message_id, _ in theirs.events] == their_ids
            assert receiver.rejected == theirs.rejected == []
            notification, started = (event for _, event in receiver.events)
            assert notification["data"]["notifications"][0]["custom_id"] == "ada"
            assert started["data"]["custom_id"] == "ada"
            # The mock tells the same: each tenant's deliveries are to its own endpoint, answered.
            wait_until(lambda: delivered(tenant, 2) and delivered(neighbour, 2), "the deliveries answered")
            assert [delivery["id"] for delivery in tenant.deliveries()] == my_ids
            assert [delivery["id"] for delivery in neighbour.deliveries()] == their_ids
    finally:
        neighbour.remove()


def test_a_delivery_that_does_not_verify_is_refused(tenant, client, receiver):
    tenant.add_webhook(receiver.url)
    receiver.secret = "whsec_" + base64.b64encode(b"not the endpoint's secret").decode()
    client.identify("ada")
    sent = tenant.raise_event("notifications.sent", "ada")["id"]
    wait_until(lambda: any("status" in a for d in tenant.deliveries() for a in d["attempts"]), "an answer")
    assert receiver.rejected[0] == (sent, "no svix-signature matches the endpoint's secret")
    assert receiver.events == []
    [delivery] = tenant.deliveries()
    assert (delivery["id"], delivery["attempts"][0].get("status"), delivery["delivered"]) == (sent, 400, False)
