//! Tables across files: models declared in one module, queried and mutated in others, raw SQL,
//! Django models through abstract bases in another module — through `analyse_tree` on small trees.

use cartograph_core::{EdgeKind, NodeKind, RefusalKind};
use cartograph_pipeline::Analysis;

use crate::common;

use common::analyse_files as analyse;

/// The table edges as `kind from -> table provenance/confidence`, in the analysis's order.
fn table_edges(analysis: &Analysis) -> Vec<String> {
    analysis
        .edges
        .iter()
        .filter(|e| matches!(e.kind, EdgeKind::Defines | EdgeKind::Reads | EdgeKind::Writes))
        .map(|e| {
            format!(
                "{} {} -> {} {}/{}",
                e.kind.as_str(),
                e.from.name(),
                e.to.name(),
                e.provenance.as_str(),
                e.confidence.as_str()
            )
        })
        .collect()
}

/// The table edges of a tree, and its analysis.
fn described(files: &[(&str, &str)]) -> (String, Analysis) {
    let analysis = analyse(files);
    (table_edges(&analysis).join("\n"), analysis)
}

const MODELS: &str = r#"
import uuid
from sqlmodel import Field, SQLModel

class ItemBase(SQLModel):
    title: str

class Item(ItemBase, table=True):
    id: uuid.UUID = Field(default_factory=uuid.uuid4, primary_key=True)

class User(SQLModel, table=True):
    id: int = Field(primary_key=True)
"#;

const ROUTES: &str = r#"
from sqlmodel import select, func
from app.models import Item, ItemBase
from app import models

def read_items(session):
    count = session.exec(select(func.count()).select_from(Item)).one()
    return session.exec(select(Item)).all()

def create_item(session, item_in):
    item = Item.model_validate(item_in)
    session.add(item)

def delete_user(session, id):
    user = session.get(models.User, id)
    session.delete(user)

def not_a_table(session):
    return session.exec(select(ItemBase))
"#;

#[test]
fn sqlmodel_model_in_one_module_queried_in_another() {
    let analysis = check!(&[
        ("backend/app/__init__.py", ""),
        ("backend/app/models.py", MODELS),
        ("backend/app/api/__init__.py", ""),
        ("backend/app/api/items.py", ROUTES),
    ]);
    let item = analysis
        .edges
        .iter()
        .find(|e| e.kind == EdgeKind::Reads && e.to.name() == "item")
        .expect("a read of item");
    assert_eq!(item.location.line, 7, "the first read is kept");
    assert!(
        item.evidence.as_str().contains("of SQLModel model Item in backend/app/models.py"),
        "{}",
        item.evidence
    );
    let table = analysis.nodes.iter().find(|n| n.key.kind() == NodeKind::Table).unwrap();
    assert_eq!(table.attrs.framework.as_deref(), Some("sqlmodel"));
}

#[test]
fn declared_names_are_certain_and_reexports_are_followed() {
    let models = r#"
from sqlalchemy.orm import DeclarativeBase
class Invoice(Base):
    __tablename__ = "invoices"
    __table_args__ = {"schema": "billing"}
"#;
    let service = r#"
from sqlalchemy import select
from billing.models import Invoice

def list_invoices(session):
    return session.scalars(select(Invoice)).all()
"#;
    check!(&[
        ("billing/__init__.py", ""),
        ("billing/models/__init__.py", "from .invoice import Invoice\n"),
        ("billing/models/invoice.py", models),
        ("billing/service.py", service),
    ]);
}

#[test]
fn django_models_through_an_abstract_base_in_another_module() {
    let base = r#"
from django.db import models

class PrimaryModel(models.Model):
    class Meta:
        abstract = True
"#;
    let dcim = r#"
from django.db import models
from netbox.models import PrimaryModel

class Site(PrimaryModel):
    name = models.CharField(max_length=100)

class Rack(PrimaryModel):
    class Meta:
        db_table = "racks"

class SiteProxy(Site):
    class Meta:
        proxy = True
"#;
    let views = r#"
from dcim.models import Site, Rack

def sites(request):
    return Site.objects.filter(name="x")

def rename(request):
    Rack.objects.filter(pk=1).update(name="y")
"#;
    let users = r#"
from django.contrib.auth.models import AbstractUser
from django import forms

class User(AbstractUser):
    pass

class UserForm(forms.ModelForm):
    pass
"#;
    check!(&[
        ("netbox/__init__.py", ""),
        ("netbox/models.py", base),
        ("dcim/__init__.py", ""),
        ("dcim/models.py", dcim),
        ("dcim/views.py", views),
        ("users/__init__.py", ""),
        ("users/models.py", users),
    ]);
}

#[test]
fn raw_sql_and_computed_tables() {
    let py = r#"
def report(cursor, table):
    cursor.execute("SELECT id FROM orders JOIN customers ON customers.id = orders.customer_id")
    cursor.execute(f"DELETE FROM {table} WHERE id = %s", (1,))
"#;
    let ts = "export const q = (id: string) => db.query(\"UPDATE orders SET done = true WHERE id = $1\", [id]);\n";
    let analysis = check!(&[("app/report.py", py), ("web/db.ts", ts)]);
    let refused: Vec<_> =
        analysis.refusals.iter().filter(|r| r.kind == RefusalKind::ComputedTable).collect();
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0].location.path.as_str(), "app/report.py");
    assert_eq!(refused[0].location.line, 4);
}

#[test]
fn drizzle_tables_imported_into_a_query_module() {
    let schema = "import { pgTable, serial } from \"drizzle-orm/pg-core\";\nexport const users = pgTable(\"users\", { id: serial(\"id\") });\n";
    let repo = "import { users } from \"./schema\";\nexport const all = (db) => db.select().from(users);\nexport const add = (db, u) => db.insert(users).values(u);\n";
    check!(&[("src/db/schema.ts", schema), ("src/db/repo.ts", repo)]);
}

#[test]
fn knex_instance_imported_from_another_module() {
    let db = "import knex from \"knex\";\n\nexport const db = knex({ client: \"pg\" });\n";
    let audit = r#"import { db } from "./db.js";
import { t } from "./i18n.js";

export async function record(action: string) {
  await db("audit_log").insert({ action });
  t("audit_log");
}

export async function recent() {
  return db<Entry>("audit_log").where({}).orderBy("created_at", "desc");
}
"#;
    let i18n = "export const t = (key: string) => key;\n";
    check!(&[("bff/src/db.ts", db), ("bff/src/audit.ts", audit), ("bff/src/i18n.ts", i18n)]);
}

/// Sequelize models default-exported one per module and re-exported by a barrel: a static
/// method on the imported name reaches the model's table (by the only model so named, since the
/// barrel's re-exports are not followed); a TypeORM entity of the same name elsewhere takes no
/// Sequelize use, and a name that is not imported takes none.
#[test]
fn sequelize_models_behind_a_barrel() {
    let team = r#"
import { Table, Model } from "sequelize-typescript";

@Table({ tableName: "teams", modelName: "team" })
class Team extends Model {}

export default Team;
"#;
    let entity = r#"
import { Entity } from "typeorm";

@Entity("legacy_accounts")
export class Account {}
"#;
    let barrel = "export { default as Team } from \"./Team\";\n";
    let route = r#"
import { Team } from "../models";
import { Account } from "../entities/Account";

export async function info(id: string) {
  const team = await Team.findByPk(id);
  await Team.update({ seen: true }, { where: { id } });
  await Account.findAll();
  await Local.findAll();
  return team;
}
"#;
    check!(&[
        ("server/models/Team.ts", team),
        ("server/models/index.ts", barrel),
        ("server/entities/Account.ts", entity),
        ("server/routes/teams.ts", route),
    ]);
}

/// A Peewee model imported into a view module; its `select` reads and `create` writes.
#[test]
fn peewee_model_imported_into_a_view() {
    let models = r#"
from peewee import Model, CharField, SqliteDatabase

db = SqliteDatabase("app.db")

class BaseModel(Model):
    class Meta:
        database = db

class Note(BaseModel):
    text = CharField()
"#;
    let views = r#"
from app.models import Note

def index():
    return list(Note.select())

def add(text):
    Note.create(text=text)
"#;
    check!(&[("app/models.py", models), ("app/views.py", views)]);
}

/// Tables created in the application's SQL schema files are defined there; a migration's and a
/// test's are not read.
#[test]
fn sql_schema_files_define_tables() {
    check!(&[
        (
            "packages/schema/tables/users.sql",
            "create table users (\n  id varchar(21) not null\n);\n"
        ),
        (
            "packages/schema/tables/audit.sql",
            "/* order 3 */\nCREATE TABLE audit.events (id int);\n"
        ),
        ("db/migrations/0001_init.sql", "create table legacy_users (id int);\n"),
        ("server/tests/setup.sql", "create table scratch (id int);\n"),
    ]);
}

/// A `ManyToManyField` without `through=` declares Django's join table; one with `through=`
/// declares none; `User.objects` on Django's own user model reads `auth_user`, also through a
/// module that imports it (`Group`).
#[test]
fn django_join_tables_and_contrib_models() {
    let models = r#"
from django.db import models
from django.contrib.auth.models import Group

class Tag(models.Model):
    name = models.CharField(max_length=10)

class Recipe(models.Model):
    tags = models.ManyToManyField(Tag, blank=True)
    cooks = models.ManyToManyField("auth.User", through="Cook")

class Cook(models.Model):
    recipe = models.ForeignKey(Recipe, on_delete=models.CASCADE)
"#;
    let views = r#"
from django.contrib.auth.models import User
from kitchen.models import Group, Recipe

def index(request):
    User.objects.filter(is_active=True)
    Group.objects.create(name="cooks")
    return Recipe.objects.all()
"#;
    check!(&[("kitchen/models.py", models), ("kitchen/views.py", views)]);
}

#[test]
fn sqlalchemy_single_and_joined_table_inheritance_across_modules() {
    // Flask-SQLAlchemy: a subclass with no primary key column maps onto its parent's table, even
    // with a `__tablename__` of its own; one with a primary key and no `__tablename__` gets its
    // own default snake_case table. Plain SQLAlchemy: a subclass without `__tablename__` maps
    // onto its parent's table. A class whose other base is not a model keeps what it declares.
    let zoo = r#"
from flask_sqlalchemy import SQLAlchemy
db = SQLAlchemy()

class Animal(db.Model):
    __tablename__ = "animals"
    id = db.Column(db.Integer, primary_key=True)
    species = db.Column(db.String(32))
    __mapper_args__ = {"polymorphic_on": species}

class Parrot(Animal):
    __tablename__ = "parrots"
    __mapper_args__ = {"polymorphic_identity": "parrot"}

class Audited(object):
    pass

class Otter(Audited, Animal):
    __tablename__ = "otters"
    __mapper_args__ = {"polymorphic_identity": "otter"}
"#;
    let plugin = r#"
from zoo.models import Animal, db

class GiantTortoise(Animal):
    __mapper_args__ = {"polymorphic_identity": "tortoise"}
    id = db.Column(db.Integer, db.ForeignKey("animals.id"), primary_key=True)
    shell_rings = db.Column(db.Integer)

def hatch(rings):
    db.session.add(GiantTortoise(shell_rings=rings))
"#;
    let views = r#"
from zoo.models import Parrot, Otter, db

def adopt(name):
    db.session.add(Parrot(name=name))
    return Otter.query.filter_by(name=name).first()
"#;
    let ledger = r#"
from sqlalchemy import Column, Integer, String, select
from sqlalchemy.orm import DeclarativeBase

class Base(DeclarativeBase):
    pass

class Entry(Base):
    __tablename__ = "entries"
    id = Column(Integer, primary_key=True)
    kind = Column(String)
    __mapper_args__ = {"polymorphic_on": kind}

class Refund(Entry):
    __mapper_args__ = {"polymorphic_identity": "refund"}

def refunds(session):
    return session.scalars(select(Refund)).all()
"#;
    check!(&[
        ("zoo/__init__.py", ""),
        ("zoo/models.py", zoo),
        ("zoo/plugins/__init__.py", ""),
        ("zoo/plugins/tortoise.py", plugin),
        ("zoo/views.py", views),
        ("ledger.py", ledger),
    ]);
}
