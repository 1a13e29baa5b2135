"""A fake GitHub REST API on 127.0.0.1 for the action's harness.

It keeps issues, pull requests, issue comments and labels in memory, answers the endpoints the
action uses (with pagination and the Link header, 422 for a body over 65,536 characters like
GitHub, 403 for writes when the token is read-only, 403 on GET /user for an installation token),
serves release assets under /releases/download/, and records every request.
"""

import json
import re
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

BODY_LIMIT = 65_536


class FakeGitHub:
    def __init__(self, repo="acme/shop"):
        self.repo = repo
        self.lock = threading.Lock()
        self.requests = []
        self.comments = {}  # id -> {"id", "issue", "user", "body"}
        self.issues = {}  # number -> {"number", "title", "body", "state", "labels", "user", "pull_request"?}
        self.pulls = {}  # number -> {"number", "head": {"sha"}, "base": {"sha"}}
        self.labels = set()
        self.assets = {}  # "/releases/download/VERSION/ASSET" -> bytes
        self.tokens = {}  # token -> {"login", "user_endpoint": bool, "read_only": bool}
        self.next_id = 1000
        self.per_page_cap = 100
        server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        server.daemon_threads = True
        self.server = server
        self.url = f"http://127.0.0.1:{server.server_address[1]}"
        self.thread = threading.Thread(target=server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    # ---- fixtures -------------------------------------------------------------------------
    def add_token(self, token, login, user_endpoint=False, read_only=False):
        self.tokens[token] = {"login": login, "user_endpoint": user_endpoint, "read_only": read_only}

    def add_pull(self, number, base_sha, head_sha):
        self.pulls[number] = {"number": number, "head": {"sha": head_sha}, "base": {"sha": base_sha}, "state": "open"}
        self.issues[number] = {"number": number, "title": f"PR {number}", "body": "", "state": "open", "labels": [], "user": {"login": "contributor"}, "pull_request": {}}

    def add_comment(self, issue, login, body):
        with self.lock:
            cid = self._id()
            self.comments[cid] = {"id": cid, "issue": issue, "user": {"login": login}, "body": body}
            return cid

    def comments_on(self, issue):
        return [c for c in sorted(self.comments.values(), key=lambda c: c["id"]) if c["issue"] == issue]

    def writes(self):
        return [r for r in self.requests if r["method"] in ("POST", "PATCH", "PUT", "DELETE")]

    def _id(self):
        self.next_id += 1
        return self.next_id

    # ---- HTTP ------------------------------------------------------------------------------
    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, status, payload=None, headers=None, raw=None):
                data = raw if raw is not None else (json.dumps(payload).encode() if payload is not None else b"")
                self.send_response(status)
                self.send_header("Content-Type", "application/octet-stream" if raw is not None else "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def _dispatch(self, method):
                parsed = urllib.parse.urlsplit(self.path)
                query = dict(urllib.parse.parse_qsl(parsed.query))
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                body = json.loads(raw) if raw else None
                auth = self.headers.get("Authorization", "")
                token = auth[len("Bearer ") :] if auth.startswith("Bearer ") else ""
                with fake.lock:
                    fake.requests.append({"method": method, "path": parsed.path, "query": query, "body": body, "token": token})
                try:
                    status, payload, headers, raw_out = fake.route(method, parsed.path, query, body, token)
                except Exception as error:  # a harness bug must show up as a failing request
                    status, payload, headers, raw_out = 500, {"message": f"fake API error: {error!r}"}, None, None
                self._send(status, payload, headers, raw_out)

            def do_GET(self):
                self._dispatch("GET")

            def do_POST(self):
                self._dispatch("POST")

            def do_PATCH(self):
                self._dispatch("PATCH")

            def do_DELETE(self):
                self._dispatch("DELETE")

        return Handler

    def _page(self, items, query, path):
        per_page = min(int(query.get("per_page", 30)), self.per_page_cap)
        page = int(query.get("page", 1))
        chunk = items[(page - 1) * per_page : page * per_page]
        headers = {}
        if page * per_page < len(items):
            next_query = dict(query, page=str(page + 1), per_page=str(per_page))
            headers["Link"] = f'<{self.url}{path}?{urllib.parse.urlencode(next_query)}>; rel="next"'
        return 200, chunk, headers, None

    def route(self, method, path, query, body, token):
        if path.startswith("/releases/download/"):
            data = self.assets.get(path)
            return (200, None, None, data) if data is not None else (404, {"message": "Not Found"}, None, None)
        identity = self.tokens.get(token)
        if identity is None:
            return 401, {"message": "Bad credentials"}, None, None
        if method != "GET" and identity["read_only"]:
            return 403, {"message": "Resource not accessible by integration"}, None, None
        if path == "/user":
            if not identity["user_endpoint"]:
                return 403, {"message": "Resource not accessible by integration"}, None, None
            return 200, {"login": identity["login"]}, None, None
        prefix = f"/repos/{self.repo}"
        if not path.startswith(prefix + "/"):
            return 404, {"message": "Not Found"}, None, None
        rest = path[len(prefix) :]
        if isinstance(body, dict) and len(body.get("body") or "") > BODY_LIMIT:
            return 422, {"message": "Validation Failed", "errors": [{"message": "body is too long (maximum is 65536 characters)"}]}, None, None
        login = identity["login"]
        with self.lock:
            return self._repo_route(method, rest, query, body, login, path)

    def _repo_route(self, method, rest, query, body, login, path):
        m = re.fullmatch(r"/issues/(\d+)/comments", rest)
        if m:
            number = int(m.group(1))
            if number not in self.issues:
                return 404, {"message": "Not Found"}, None, None
            if method == "GET":
                items = [self._comment_json(c) for c in self.comments_on(number)]
                return self._page(items, query, path)
            if method == "POST":
                cid = self._id()
                self.comments[cid] = {"id": cid, "issue": number, "user": {"login": login}, "body": body["body"]}
                return 201, self._comment_json(self.comments[cid]), None, None
        m = re.fullmatch(r"/issues/comments/(\d+)", rest)
        if m and method in ("PATCH", "DELETE"):
            comment = self.comments.get(int(m.group(1)))
            if comment is None:
                return 404, {"message": "Not Found"}, None, None
            if comment["user"]["login"] != login:
                return 403, {"message": "Must have admin rights to Repository."}, None, None
            if method == "DELETE":
                del self.comments[comment["id"]]
                return 204, None, None, None
            comment["body"] = body["body"]
            return 200, self._comment_json(comment), None, None
        m = re.fullmatch(r"/pulls/(\d+)", rest)
        if m and method == "GET":
            pull = self.pulls.get(int(m.group(1)))
            return (200, pull, None, None) if pull else (404, {"message": "Not Found"}, None, None)
        if rest == "/issues":
            if method == "GET":
                state = query.get("state", "open")
                wanted = set(filter(None, query.get("labels", "").split(",")))
                items = [
                    self._issue_json(i)
                    for i in sorted(self.issues.values(), key=lambda i: i["number"])
                    if (state == "all" or i["state"] == state) and wanted <= set(i["labels"])
                ]
                return self._page(items, query, path)
            if method == "POST":
                number = max(self.issues, default=0) + 1
                self.issues[number] = {"number": number, "title": body["title"], "body": body.get("body", ""), "state": "open", "labels": list(body.get("labels", [])), "user": {"login": login}}
                return 201, self._issue_json(self.issues[number]), None, None
        m = re.fullmatch(r"/issues/(\d+)", rest)
        if m and method == "PATCH":
            issue = self.issues.get(int(m.group(1)))
            if issue is None:
                return 404, {"message": "Not Found"}, None, None
            for key in ("title", "body", "state", "state_reason"):
                if key in body:
                    issue[key] = body[key]
            return 200, self._issue_json(issue), None, None
        m = re.fullmatch(r"/labels/([^/]+)", rest)
        if m and method == "GET":
            name = urllib.parse.unquote(m.group(1))
            return (200, {"name": name}, None, None) if name in self.labels else (404, {"message": "Not Found"}, None, None)
        if rest == "/labels" and method == "POST":
            self.labels.add(body["name"])
            return 201, {"name": body["name"]}, None, None
        return 404, {"message": "Not Found"}, None, None

    def _comment_json(self, c):
        return {
            "id": c["id"],
            "body": c["body"],
            "user": dict(c["user"]),
            "html_url": f"https://github.com/{self.repo}/pull/{c['issue']}#issuecomment-{c['id']}",
        }

    def _issue_json(self, i):
        out = {
            "number": i["number"],
            "title": i["title"],
            "body": i["body"],
            "state": i["state"],
            "labels": [{"name": n} for n in i["labels"]],
            "user": dict(i["user"]),
            "html_url": f"https://github.com/{self.repo}/issues/{i['number']}",
        }
        if "pull_request" in i:
            out["pull_request"] = {"url": f"{self.url}/repos/{self.repo}/pulls/{i['number']}"}
        return out
