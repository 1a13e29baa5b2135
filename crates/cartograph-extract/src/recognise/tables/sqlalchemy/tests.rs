//! ORM unit-of-work writes: attribute assignment on a loaded instance, and new objects appended to
//! a relationship collection.

use cartograph_core::RepoPath;

use crate::recognise::tables::{Access, MappedAttributes};
use crate::{Extractor, Grammar};

/// The writes a Python source yields, one line each: `model via (reason)`.
fn writes(source: &str) -> Vec<String> {
    let path = RepoPath::new("app/service.py").unwrap();
    let facts = Extractor::new().extract(&path, Grammar::Python, source);
    facts
        .tables
        .uses
        .to_vec()
        .iter()
        .filter(|u| u.access == Access::Write)
        .map(|u| {
            format!(
                "{} via {} {} line {} ({})",
                u.model,
                u.via,
                u.confidence.as_str(),
                u.line,
                u.reason.as_deref().unwrap_or("-")
            )
        })
        .collect()
}

/// The writes of one source, a line each.
fn described(source: &str) -> String {
    writes(source).join("\n")
}

#[test]
fn attribute_assignment_on_an_instance_loaded_by_session_get() {
    check!(
        r#"
def refresh(bundle, now):
    with create_session() as session:
        bundle_model = session.get(DagBundleModel, bundle.name)
        if bundle_model is None:
            return
        bundle_model.last_refreshed = now
        bundle_model.version += 1
"#
    );
}

#[test]
fn attribute_assignment_after_each_kind_of_load() {
    check!(
        r#"
async def handlers(session, self, pk):
    a = session.scalar(select(A).where(A.id == pk))
    a.x = 1
    b = session.scalars(select(B).where(B.id == pk).with_for_update()).one_or_none()
    b.x, other.y = 1, 2
    c = self.session.query(C).filter(C.id == pk).first()
    c.x = 1
    d = (await session.execute(select(D))).scalar_one()
    d.x = 1
    e = session.execute(select(E)).scalars().first()
    e.x = 1
    f = session.exec(select(F)).one()
    f.x = 1
    g = session.query(G).get(pk)
    g.x = 1
    for h in session.scalars(select(H).where(H.done.is_(None))):
        h.done = True
    for i in session.query(I).filter_by(x=1).all():
        i.x = 2
"#
    );
}

#[test]
fn attribute_assignment_on_anything_but_a_loaded_instance_is_no_write() {
    check!(
        r#"
def f(session, item: Item, pk):
    config = Config()
    config.value = 1
    item.name = "x"
    new = Item(name="a")
    new.name = "b"
    stmt = select(Item)
    stmt.x = 1
    rows = session.scalars(select(Item)).all()
    rows.x = 1
    col = session.scalar(select(Item.id))
    col.x = 1
    pair = session.query(Item, Other).first()
    pair.x = 1
    cls_loaded = Item.query.get(pk)
    cls_loaded.x = 1
    for row in session.execute(select(Item)):
        row.x = 1
    loaded = session.get(Item, pk)
    loaded.child.name = "x"
    loaded.tags[0] = "x"

def g(obj):
    obj.x = 1
"#
    );
}

#[test]
fn the_most_recent_binding_of_a_name_wins() {
    check!(
        r#"
def f(session, pk, settings):
    obj = session.get(Item, pk)
    obj = settings.load()
    obj.name = "x"
    other = session.get(Item, pk)
    other, rest = settings.pair()
    other.name = "x"
    for row in session.scalars(select(Item)):
        pass
    for row in settings.rows():
        row.name = "x"
    again = session.get(Item, pk)
    again += 1
    again.name = "x"
    obj = session.get(Other, pk)
    obj.name = "y"

def g(obj):
    obj.name = "z"
"#
    );
}

#[test]
fn a_rebinding_also_ends_what_session_add_knows() {
    check!(
        r#"
def f(session, data):
    item = Item(**data)
    item = item.to_dict()
    session.add(item)
"#
    );
}

#[test]
fn new_objects_appended_to_a_relationship_collection() {
    check!(
        r#"
class SerializedDagModel(Base):
    __tablename__ = "serialized_dag"

    def _records(cls, serialized_dag: SerializedDagModel, mapping):
        for key, data in mapping.items():
            alert = DeadlineAlertModel(id=key, interval=data)
            serialized_dag.deadline_alerts.append(alert)

    def add_watcher(self, name):
        self.watchers.append(AssetWatcherModel(name=name))

def tags(dm: DagModel, names, session):
    dm.tags.extend(DagTag(name=name) for name in names)
    run = session.get(DagRun, 1)
    run.notes.extend([Note(text="a"), Note(text="b")])
"#
    );
}

#[test]
fn appends_that_are_not_a_new_model_in_a_relationship_are_no_write() {
    check!(
        r#"
class Executor:
    def event(self, ti):
        self._task_event_logs.append(Log(event="x"))

def f(session, dm: DagModel, rows, tag):
    dm.extra.append(dict(a=1))
    dm.tags.append(tag)
    dm.tags.clear()
    dm.tags.remove(tag)
    loaded = session.get(DagTag, 1)
    dm.tags.append(loaded)
    rows.append(DagTag(name="x"))
    results = []
    results.append(DagTag(name="x"))
    holder.items.append(DagTag(name="x"))
    stmt = select(DagTag)
    dm.statements.append(stmt)
"#
    );
}

#[test]
fn an_attribute_assignment_names_its_attribute_for_the_linker() {
    let path = RepoPath::new("app/service.py").unwrap();
    let source = "def f(session):\n    b = session.get(B, 1)\n    b.last_refreshed = 1\n";
    let facts = Extractor::new().extract(&path, Grammar::Python, source);
    let uses = facts.tables.uses.to_vec();
    let attributes: Vec<_> = uses.iter().map(|u| u.attribute.as_deref()).collect();
    // The read by session.get, then the write.
    assert_eq!(attributes, [None, Some("last_refreshed")]);
}

#[test]
fn an_expunged_object_is_no_longer_written_through_its_attributes() {
    check!(
        r#"
def get_error(session, pk):
    error = session.scalar(select(ParseImportError).where(ParseImportError.id == pk))
    session.expunge(error)
    error.stacktrace = "redacted"
    other = session.get(Other, pk)
    session.expunge_all()
    other.name = "x"
    kept = session.get(Kept, pk)
    make_transient(kept)
    kept.name = "x"
"#
    );
}

#[test]
fn model_classes_list_the_attributes_they_map() {
    let path = RepoPath::new("app/models.py").unwrap();
    let source = r#"
from sqlalchemy import Column

class DagBundleModel(Base):
    __tablename__ = "dag_bundle"
    name = Column(StringID(length=250), primary_key=True)
    version: Mapped[str | None] = mapped_column(String(200))
    teams = relationship("Team", secondary=dag_bundle_team_association_table)
    _state = Column("state", String(50))
    state = synonym("_state")
    load_op_links = True
    label: str = "x"
    note = association_proxy("dag_run_note", "content")

    @hybrid_property
    def size(self):
        return 1

    @property
    def plain(self):
        return 2

class Item(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    title: str

class NotAModel:
    name = Column(String)
"#;
    let facts = Extractor::new().extract(&path, Grammar::Python, source);
    let expected = [
        MappedAttributes {
            class: "DagBundleModel".into(),
            attributes: ["name", "version", "teams", "_state", "state", "size"]
                .map(String::from)
                .to_vec(),
        },
        MappedAttributes {
            class: "Item".into(),
            attributes: ["id", "title"].map(String::from).to_vec(),
        },
    ];
    assert_eq!(facts.tables.mapped, expected);
}

#[test]
fn a_query_refined_from_the_name_itself_keeps_its_model_an_instance_method_does_not() {
    check!(
        r#"
def f(session, pk):
    obj = session.get(Item, pk)
    obj = obj.refreshed()
    obj.name = "x"
    session.delete(obj)
    q = session.query(Item)
    q = q.filter(Item.id == pk)
    q.delete()
"#
    );
}

#[test]
fn the_value_of_an_assignment_still_sees_the_previous_binding() {
    check!(
        r#"
def expand(session, task):
    for index in range(3):
        ti = TI(task, map_index=index)
        ti = session.merge(ti)
        ti.state = None
"#
    );
}
