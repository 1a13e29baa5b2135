"""A small GitHub REST client on urllib: the base URL comes from GITHUB_API_URL (so GitHub
Enterprise and the test harness's fake API on loopback work unchanged), pagination follows the
Link header, and errors carry the status so callers can tell "not allowed" (403) from the rest.
The token is sent only to the API host and never printed."""

import json
import os
import re
import urllib.error
import urllib.parse
import urllib.request

_NEXT_LINK = re.compile(r'<([^>]+)>\s*;\s*rel="next"')


class ApiError(Exception):
    """A request the API refused; `status` is the HTTP status (0 when unreachable)."""

    def __init__(self, status, method, route, message):
        super().__init__(f"GitHub API {method} {route} answered {status}: {message}")
        self.status = status


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    # A redirect could carry the Authorization header elsewhere; the REST API does not need one.
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


class GitHub:
    def __init__(self, token, api_url=None, timeout=30):
        self.token = token
        self.api_url = (api_url or os.environ.get("GITHUB_API_URL") or "https://api.github.com").rstrip("/")
        parsed = urllib.parse.urlparse(self.api_url)
        loopback = parsed.hostname in ("127.0.0.1", "localhost", "::1")
        if parsed.scheme != "https" and not (parsed.scheme == "http" and loopback):
            raise ValueError("GITHUB_API_URL must be https (http only on loopback)")
        self.timeout = timeout
        self._opener = urllib.request.build_opener(_NoRedirect)

    def _url(self, route, query=None):
        url = route if route.startswith(("http://", "https://")) else self.api_url + route
        if query:
            url += ("&" if "?" in url else "?") + urllib.parse.urlencode(query)
        return url

    def request(self, method, route, body=None, query=None):
        """Returns (status, parsed JSON or None, headers)."""
        url = self._url(route, query)
        if not url.startswith(self.api_url + "/"):
            raise ApiError(0, method, route, "a pagination link left the API host")
        data = None
        headers = {
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
            "User-Agent": "cartograph-action",
        }
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request(url, data=data, method=method, headers=headers)
        shown = urllib.parse.urlparse(url).path
        try:
            with self._opener.open(req, timeout=self.timeout) as response:
                raw = response.read()
                payload = json.loads(raw) if raw else None
                return response.status, payload, response.headers
        except urllib.error.HTTPError as error:
            message = ""
            try:
                message = json.loads(error.read() or b"{}").get("message", "")
            except (ValueError, AttributeError):
                message = ""
            raise ApiError(error.code, method, shown, message or error.reason) from None
        except (urllib.error.URLError, OSError) as error:
            raise ApiError(0, method, shown, f"unreachable ({type(error).__name__})") from None

    def get(self, route, query=None):
        return self.request("GET", route, query=query)[1]

    def post(self, route, body):
        return self.request("POST", route, body=body)[1]

    def patch(self, route, body):
        return self.request("PATCH", route, body=body)[1]

    def delete(self, route):
        return self.request("DELETE", route)[1]

    def paginate(self, route, query=None, max_pages=100):
        """Yields every item of a list endpoint, 100 per page, following rel="next"."""
        query = dict(query or {})
        query.setdefault("per_page", "100")
        url = self._url(route, query)
        for _ in range(max_pages):
            _, payload, headers = self.request("GET", url)
            for item in payload or []:
                yield item
            match = _NEXT_LINK.search(headers.get("Link", "") or "")
            if not match:
                return
            url = match.group(1)

    def login(self, fallback):
        """The token's own login: GET /user, or `fallback` when the token cannot read it
        (GITHUB_TOKEN and app tokens answer 403; their comments are by `github-actions[bot]`)."""
        try:
            user = self.get("/user")
            if isinstance(user, dict) and user.get("login"):
                return user["login"]
        except ApiError as error:
            if error.status not in (401, 403, 404):
                raise
        return fallback
