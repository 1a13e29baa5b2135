//! ORM unit-of-work writes across modules: an attribute set on a loaded instance writes the table
//! only when the model's class maps that attribute; a new object appended to a relationship of a
//! model object writes the element's table — through `analyse_tree` on a small tree.

use cartograph_core::EdgeKind;

use crate::common;

use common::analyse_files as analyse;

const MODELS: &str = r#"
from sqlalchemy import Column, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

class DagBundleModel(Base):
    __tablename__ = "dag_bundle"
    name = Column(String(250), primary_key=True)
    version: Mapped[str | None] = mapped_column(String(200))
    alerts = relationship("Alert")
    load_op_links = True

class Alert(Base):
    __tablename__ = "alert"
    id = Column(String(36), primary_key=True)

class Config:
    value = None
"#;

const SERVICE: &str = r#"
from sqlalchemy import select
from app.models import Alert, Config, DagBundleModel

def refresh(session, name, version):
    bundle = session.get(DagBundleModel, name)
    bundle.version = version

def cache_links(session):
    for bundle in session.scalars(select(DagBundleModel)):
        bundle.load_op_links = False

def configure(session):
    config = session.get(Config, 1)
    config.value = 2

def alert(session, name):
    bundle = session.get(DagBundleModel, name)
    bundle.alerts.append(Alert(id="a"))
"#;

fn writes(files: &[(&str, &str)]) -> Vec<String> {
    let analysis = analyse(files);
    analysis
        .edges
        .iter()
        .filter(|e| e.kind == EdgeKind::Writes)
        .map(|e| {
            format!(
                "{} -> {} {} line {}: {}",
                e.from.name(),
                e.to.name(),
                e.confidence.as_str(),
                e.location.line,
                e.evidence.as_str()
            )
        })
        .collect()
}

#[test]
fn attribute_writes_need_a_mapped_attribute_and_appends_a_new_model() {
    let got =
        writes(&[("app/__init__.py", ""), ("app/models.py", MODELS), ("app/service.py", SERVICE)]);
    assert_eq!(
        got,
        [
            "app/service.py -> alert likely line 19: relationship append on Alert writes table \
             alert of SQLAlchemy model Alert in app/models.py (a new Alert is added to a \
             collection attribute of a model object, taken to be a relationship)",
            "app/service.py -> dag_bundle likely line 7: attribute assignment on DagBundleModel \
             writes table dag_bundle of SQLAlchemy model DagBundleModel in app/models.py (the \
             object is a row of DagBundleModel loaded by session.get in the same function, and \
             the class maps the attribute)",
        ]
    );
}
