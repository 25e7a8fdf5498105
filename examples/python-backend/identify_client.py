"""A Python backend's calls to the Identify and Delete User API, with the standard library only."""

import json
import urllib.error
import urllib.parse
import urllib.request


class ApiError(Exception):
    """An answer other than 2xx: its status and the API's message."""

    def __init__(self, status, message):
        super().__init__(f"{status} {message}")
        self.status = status
        self.message = message


class IdentifyClient:
    """Identifies users (for a sign-in token) and deletes them, for one organisation."""

    def __init__(self, base_url, api_key, org_id, timeout=10):
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.org_id = org_id
        self.timeout = timeout

    def identify(self, user_id, **data):
        """Creates or updates the user; the API's answer, with a fresh sign-in `token`."""
        body = {"id": user_id, "orgId": self.org_id, "data": data}
        return self._call("POST", "/api/v1/users/identify", body)

    def web_view_url(self, user_id, **data):
        """The URL an app opens to show the web view signed in as the user."""
        token = self.identify(user_id, **data)["token"]
        query = urllib.parse.urlencode({"orgId": self.org_id, "token": token, "webview": "true"})
        return f"{self.base_url}/webview?{query}"

    def delete_user(self, user_id):
        """Deletes the user: True, or False when the API does not know them."""
        path = f"/api/v1/users/{urllib.parse.quote(self.org_id, safe='')}/{urllib.parse.quote(user_id, safe='')}"
        try:
            return self._call("DELETE", path)["deleted"]
        except ApiError as error:
            if error.status == 404:
                return False
            raise

    def _call(self, method, path, body=None):
        request = urllib.request.Request(
            self.base_url + path,
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"Bearer {self.api_key}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return json.load(response)
        except urllib.error.HTTPError as error:
            raise ApiError(error.code, json.load(error).get("message")) from None
