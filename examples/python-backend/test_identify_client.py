"""The backend's client tested against the mock with pytest, in parallel (`pytest -n 4`): each test
has a tenant of its own (see conftest.py), whose faults and reset touch no other test's."""

import urllib.error
import urllib.request

import pytest

from conftest import BASE_URL
from identify_client import ApiError, IdentifyClient


def test_identify_creates_the_user_with_a_token(client, tenant):
    answer = client.identify("py-1", firstName="Ada", country="GB")
    assert answer["id"] == "py-1"
    assert answer["token"]
    assert tenant.user("py-1")["profile"]["firstName"] == "Ada"


def test_a_user_created_in_an_exact_state_keeps_it(client):
    assert client.identify("archived")["data"]["registrationStatus"] == "archived"


def test_the_web_view_url_signs_the_user_in(client):
    url = client.web_view_url("py-2", firstName="Grace")
    with urllib.request.urlopen(url, timeout=10) as page:
        assert page.status == 200
        assert "Grace" in page.read().decode()


def test_a_cached_web_view_url_is_refused_after_the_token_ttl(client, tenant):
    tenant.freeze_clock("2030-01-01T09:00:00Z")
    cached = client.web_view_url("py-6")
    tenant.advance_clock(301_000)
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(cached, timeout=10)
    assert refused.value.code == 401
    assert "This sign-in link has expired" in refused.value.read().decode()
    with urllib.request.urlopen(client.web_view_url("py-6"), timeout=10) as page:
        assert page.status == 200


def test_delete_removes_the_user_and_tells_an_unknown_one(client):
    client.identify("py-3")
    assert client.delete_user("py-3") is True
    assert client.delete_user("py-3") is False


def test_a_wrong_key_is_an_error_with_the_status(tenant):
    client = IdentifyClient(BASE_URL, "not-a-key", tenant.org_id)
    with pytest.raises(ApiError) as raised:
        client.identify("py-4")
    assert raised.value.status == 401


@pytest.mark.parametrize("attempt", range(8))
def test_a_server_error_reaches_the_caller_and_only_this_tenant(client, tenant, attempt):
    tenant.fail_next("identify", 500)
    with pytest.raises(ApiError) as raised:
        client.identify(f"py-5-{attempt}")
    assert (raised.value.status, raised.value.message) == (500, "Internal server error")
    assert client.identify(f"py-5-{attempt}")["id"] == f"py-5-{attempt}"
    assert [call["status"] for call in tenant.calls()] == [500, 200]


def test_a_fault_for_one_user_spares_the_others(client, tenant):
    tenant.fail_next("delete", 500, id="archived")
    client.identify("other")
    assert client.delete_user("other") is True
    with pytest.raises(ApiError):
        client.delete_user("archived")
    assert client.delete_user("archived") is True


def test_a_reset_brings_back_only_this_tenant(client, tenant):
    assert client.delete_user("archived") is True
    tenant.reset()
    assert tenant.calls() == []
    assert client.identify("archived")["data"]["registrationStatus"] == "archived"
