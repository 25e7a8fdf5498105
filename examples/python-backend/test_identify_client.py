"""The backend's client tested against the mock: `python3 -m unittest` with the mock's URL in
IDENTIFY_API_URL (the server, or its container in a CI service). The test resets the mock before
each test and queues faults through its /__mock control endpoints."""

import json
import os
import unittest
import urllib.request

from identify_client import ApiError, IdentifyClient

BASE_URL = os.environ.get("IDENTIFY_API_URL", "http://127.0.0.1:4010")
API_KEY = os.environ.get("IDENTIFY_API_KEY", "test-key")
ORG_ID = os.environ.get("IDENTIFY_ORG_ID", "acme")


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


class IdentifyClientTest(unittest.TestCase):
    def setUp(self):
        control("POST", "/__mock/reset")
        self.client = IdentifyClient(BASE_URL, API_KEY, ORG_ID)

    def test_identify_creates_the_user_with_a_token(self):
        answer = self.client.identify("py-1", firstName="Ada", country="GB")
        self.assertEqual(answer["id"], "py-1")
        self.assertTrue(answer["token"])
        user = control("GET", f"/__mock/user?orgId={ORG_ID}&id=py-1")
        self.assertEqual(user["profile"]["firstName"], "Ada")

    def test_the_web_view_url_signs_the_user_in(self):
        url = self.client.web_view_url("py-2", firstName="Grace")
        with urllib.request.urlopen(url, timeout=10) as page:
            self.assertEqual(page.status, 200)
            self.assertIn("Grace", page.read().decode())

    def test_delete_removes_the_user_and_tells_an_unknown_one(self):
        self.client.identify("py-3")
        self.assertTrue(self.client.delete_user("py-3"))
        self.assertFalse(self.client.delete_user("py-3"))

    def test_a_wrong_key_is_an_error_with_the_status(self):
        client = IdentifyClient(BASE_URL, "not-a-key", ORG_ID)
        with self.assertRaises(ApiError) as raised:
            client.identify("py-4")
        self.assertEqual(raised.exception.status, 401)

    def test_a_server_error_reaches_the_caller(self):
        control("POST", "/__mock/faults", {"operation": "identify", "status": 500})
        with self.assertRaises(ApiError) as raised:
            self.client.identify("py-5")
        self.assertEqual((raised.exception.status, raised.exception.message), (500, "Internal server error"))


if __name__ == "__main__":
    unittest.main()
