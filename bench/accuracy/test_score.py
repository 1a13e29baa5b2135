"""Tests of the evaluation-set scorer on a hand-made application and snapshot (no cartograph run)."""

import tempfile
import unittest
from pathlib import Path

import score

APP_TOML = """
repo = "example/shop"
commit = "0123456789abcdef0123456789abcdef01234567"
backend = "FastAPI"
frontend = "React"
call_scope = ["web/src/api/**"]
route_scope = ["api/routes/**"]
env_scope = ["api/**", "web/src/**"]
table_scope = ["api/db/**"]
"""

ENV = """name\texpect\tsite\tnote
DATABASE_URL\t+\tapi/settings.py:4\tos.environ
SECRET_KEY\t+\tapi/settings.py:5\tenv("SECRET_KEY")
VITE_API\t+\tweb/src/config.ts:1\timport.meta.env
"""

TABLES = """name\texpect\tsite\tnote
item\t+\tapi/db/models.py:3\tmodel
"Order"\t+\tapi/db/models.py:9\tPrisma-style quoted name
audit\t+\tapi/db/raw.py:2\traw SQL
pg_class\t-\tapi/db/raw.py:8\tcatalog
"""

CALLS = """site\tmethod\troute\tnote
# a comment line
web/src/api/items.ts:3\tGET\t/api/items/{item_id}/\t
web/src/api/items.ts:9\tPOST\t/api/items\t
web/src/api/items.ts:12\tDELETE\t/api/items/{id}\tnever linked
web/src/api/items.ts:20\tGET\t-\texternal: a CDN
web/src/api/legacy.ts:4\tPUT\t/api/legacy\tANY route
"""

ROUTES = """method\tpath\thandler\tnote
GET\t/api/items/{item_id}\tapi/routes/items.py:10\t
POST\t/api/items/\tapi/routes/items.py:20\t
DELETE\t/api/items/{item_id}\tapi/routes/items.py:30\t
ANY\t/api/legacy\tapi/routes/legacy.py:5\t
"""


def edge(path, line, to, confidence="certain"):
    return {
        "kind": "calls",
        "from": f"module:{path}",
        "to": to,
        "confidence": confidence,
        "location": {"path": path, "line": line, "column": 1},
    }


def route(method, path, module):
    return {"id": f"route:{method} {path}", "kind": "route", "handler": {"module": module}}


SNAPSHOT = {
    "nodes": [
        route("GET", "/api/items/{}", "api/routes/items.py"),
        route("POST", "/api/items", "api/routes/items.py"),
        route("ANY", "/api/legacy", "api/routes/legacy.py"),
        route("GET", "/api/stray", "api/routes/items.py"),
    ],
    "edges": [
        edge("web/src/api/items.ts", 3, "route:GET /api/items/{}"),
        # the POST site linked to the wrong method's route: right path, wrong method
        edge("web/src/api/items.ts", 9, "route:GET /api/items", "possible"),
        edge("web/src/api/items.ts", 20, "route:GET /api/stray"),
        edge("web/src/api/legacy.ts", 4, "route:ANY /api/legacy"),
        # outside the call scope: not scored for precision
        edge("web/src/pages/x.ts", 1, "route:GET /api/stray"),
        edge("web/src/api/items.ts", 5, "external:https://cdn.example.com"),
    ],
    "refusals": [
        {"kind": "unmatched-call", "location": {"path": "web/src/api/items.ts", "line": 12}},
        {"kind": "computed-env-key", "location": {"path": "api/settings.py", "line": 30}},
        {"kind": "computed-table", "location": {"path": "tests/db.py", "line": 3}},
    ],
}


def named(kind, path, line, to):
    return {"kind": kind, "from": f"module:{path}", "to": to, "confidence": "certain",
            "location": {"path": path, "line": line, "column": 1}}


SNAPSHOT["edges"] += [
    named("reads_env", "api/settings.py", 4, "env_var:DATABASE_URL"),
    named("reads_env", "api/settings.py", 9, "env_var:DEBUG"),  # not labelled: wrong
    named("reads_env", "tests/conftest.py", 2, "env_var:SECRET_KEY"),  # out of scope
    named("reads_env", "web/src/config.ts", 1, "env_var:VITE_API"),
    named("defines", "api/db/models.py", 3, "table:item"),
    named("reads", "api/db/models.py", 20, "table:item"),
    named("writes", "api/db/models.py", 9, "table:Order"),  # case differs from the label
    named("reads", "api/db/raw.py", 2, "table:public.audit"),  # a schema the label omits
    named("reads", "api/db/raw.py", 8, "table:pg_class"),  # must not be reported
    named("reads", "api/db/raw.py", 9, "table:tmp_import"),  # not labelled
    named("reads", "api/other.py", 1, "table:stray"),  # out of the table scope
    named("reads_env", "api/db/raw.py", 1, "table:item"),  # wrong kind for the category
]


class ScoreTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        folder = Path(self.dir.name) / "shop"
        folder.mkdir()
        (folder / "app.toml").write_text(APP_TOML)
        (folder / "calls.tsv").write_text(CALLS)
        (folder / "routes.tsv").write_text(ROUTES)
        (folder / "env.tsv").write_text(ENV)
        (folder / "tables.tsv").write_text(TABLES)
        self.app = score.load_app(folder)

    def tearDown(self):
        self.dir.cleanup()

    def test_identity_matches_cartograph(self):
        self.assertEqual(score.identity("/a/{id}/b/"), "/a/{}/b")
        self.assertEqual(score.identity("/a/<int:id>"), "/a/{}")
        self.assertEqual(score.identity("/f/<path:rest>"), "/f/{*}")
        self.assertEqual(score.identity("/f/{rest:path}"), "/f/{*}")
        self.assertEqual(score.identity("/u/:id(\\d+)"), "/u/{}")
        self.assertEqual(score.identity("/n/[id]/[[...slug]]"), "/n/{}/{*}")
        self.assertEqual(score.identity("//q//?x=1"), "/q")
        self.assertEqual(score.identity("/t/<int:topic_id>-<slug>"), "/t/{}")
        self.assertEqual(score.identity("/t/{topic_id}-{slug}/edit"), "/t/{}/edit")
        self.assertEqual(score.identity("/api/food.{format}"), "/api/food.{format}")
        self.assertEqual(score.identity(""), "/")

    def test_scopes_are_globs(self):
        scope = score.Scope(["web/src/api/**", "web/*.ts"])
        self.assertIn("web/src/api/a/b.ts", scope)
        self.assertIn("web/x.ts", scope)
        self.assertNotIn("web/src/x.ts", scope)
        scope = score.Scope(["server/**", "!**/*.test.ts", "!server/test/**"])
        self.assertIn("server/env.ts", scope)
        self.assertNotIn("server/env.test.ts", scope)
        self.assertNotIn("server/test/setup.ts", scope)

    def test_calls_are_scored_per_site_and_per_edge(self):
        s = score.score(self.app, SNAPSHOT)
        self.assertEqual((s.sites, s.no_route_sites), (4, 1))
        # GET item and the ANY legacy route; POST has only a wrong-method edge; DELETE refused
        self.assertEqual(s.recalled, 2)
        self.assertEqual(s.recalled_path, 3)
        self.assertEqual(s.route_known, 3)
        # four edges in scope: GET item, POST->GET (wrong), the no-route site (wrong), legacy
        self.assertEqual((s.correct_edges, s.edges), (2, 4))
        self.assertEqual(s.no_route_linked, 1)
        self.assertEqual(len(s.misses), 2)

    def test_routes_are_scored_over_the_route_scope(self):
        s = score.score(self.app, SNAPSHOT)
        self.assertEqual((s.routes_found, s.routes_labelled), (3, 4))
        self.assertEqual((s.route_nodes_right, s.route_nodes), (3, 4))
        self.assertEqual(s.route_misses, ["DELETE /api/items/{} (api/routes/items.py:30)"])
        self.assertEqual(s.route_wrong, ["GET /api/stray (api/routes/items.py)"])

    def test_env_vars_are_scored_over_the_env_scope(self):
        n = score.score(self.app, SNAPSHOT).env
        # SECRET_KEY is read only from a test, outside the scope
        self.assertEqual((n.found, n.labelled), (2, 3))
        self.assertEqual((n.right, n.reported), (2, 3))
        self.assertEqual(n.misses, ["SECRET_KEY (api/settings.py:5)"])
        self.assertEqual(n.wrong, ["DEBUG at api/settings.py:9"])
        self.assertEqual(n.refusals, 1)

    def test_tables_are_scored_without_case_or_schema(self):
        n = score.score(self.app, SNAPSHOT).tables
        self.assertEqual((n.found, n.labelled), (3, 3))
        # item, order, audit right; pg_class (must not) and tmp_import wrong; stray out of scope
        self.assertEqual((n.right, n.reported), (3, 5))
        self.assertEqual(n.forbidden_reported, 1)
        self.assertEqual(n.refusals, 0)

    def test_categories_without_a_scope_are_not_scored(self):
        folder = Path(self.dir.name) / "shop"
        (folder / "app.toml").write_text(APP_TOML.replace('table_scope = ["api/db/**"]', ""))
        s = score.score(score.load_app(folder), SNAPSHOT)
        self.assertIsNone(s.tables)
        self.assertIsNotNone(s.env)
        self.assertNotIn("tables labelled", score.report([s]))

    def test_report_has_a_row_per_application(self):
        table = score.report([score.score(self.app, SNAPSHOT)])
        self.assertIn("| shop | FastAPI / React | 4 + 1 no-route | 50% (2) |", table)
        self.assertIn("| shop | 3 | 67% (2) | 67% (2/3) | 0 | 1 |", table)
        self.assertIn("| shop | 3 | 100% (3) | 60% (3/5) | 1 | 0 |", table)


DIFF_TOML = """
base = "1111111111111111111111111111111111111111"
head = "2222222222222222222222222222222222222222"
scope = ["api/views.py"]
added_routes = [
  "GET /api/food/{pk}/protecting/",
  "PUT /api/food/batch_update/",
  "POST /api/space/",
]
removed_routes = ["DELETE /api/old/{pk}/"]
"""


def node(method, path, module):
    return {"id": f"route:{method} {path}", "kind": "route", "name": f"{method} {path}", "handler": {"module": module}}


DIFF = {
    "nodes": {
        "added": [
            node("GET", "/api/food/{}/protecting", "api/views.py"),
            node("PUT", "/api/food/batch_update", "api/views.py"),
            # in scope but not labelled as added
            node("GET", "/api/food/{}/stray", "api/views.py"),
            # outside the scope: not judged
            node("GET", "/page", "web/views.py"),
            {"id": "module:api/new.py", "kind": "module", "name": "api/new.py"},
        ],
        "removed": [
            node("DELETE", "/api/old/{}", "api/views.py"),
            # still served in head: a false removal
            node("GET", "/api/food/{}", "api/views.py"),
            node("GET", "/gone", "web/views.py"),
        ],
        "changed": [],
    },
}


class DiffTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        folder = Path(self.dir.name) / "recipes"
        folder.mkdir()
        (folder / "app.toml").write_text(APP_TOML.replace('["web/src/api/**"]', "[]"))
        (folder / "diff.toml").write_text(DIFF_TOML)
        self.folder = folder

    def tearDown(self):
        self.dir.cleanup()

    def test_labels_are_method_and_identity(self):
        labels = score.load_diff(self.folder, score.load_app(self.folder))
        self.assertIn(("GET", "/api/food/{}/protecting"), labels.added)
        self.assertEqual(labels.removed, {("DELETE", "/api/old/{}")})
        self.assertIsNone(score.load_diff(Path(self.dir.name), score.load_app(self.folder)))

    def test_added_found_missed_and_false_removals(self):
        labels = score.load_diff(self.folder, score.load_app(self.folder))
        d = score.score_diff(labels, DIFF)
        self.assertEqual(d.added_found, ["GET /api/food/{}/protecting", "PUT /api/food/batch_update"])
        self.assertEqual(d.added_missed, ["POST /api/space"])
        self.assertEqual(d.added_unlabelled, ["GET /api/food/{}/stray (api/views.py)"])
        self.assertEqual(d.removed_found, ["DELETE /api/old/{}"])
        self.assertEqual(d.false_removals, ["GET /api/food/{} (api/views.py)"])
        self.assertEqual(d.removed_outside, 1)
        table = score.diff_report([d])
        self.assertIn("| recipes | 11111111 → 22222222 | 3 | 67% (2) | 1 | 1 | 1 | 1 |", table)

    def test_an_empty_call_scope_scores_routes_only(self):
        app = score.load_app(self.folder)
        s = score.score(app, {"nodes": [], "edges": [], "refusals": []})
        self.assertEqual((s.sites, s.edges, s.routes_labelled), (0, 0, 0))
        self.assertIn("| recipes | FastAPI / React | 0 + 0 no-route | — (0) |", score.report([s]))


if __name__ == "__main__":
    unittest.main()
