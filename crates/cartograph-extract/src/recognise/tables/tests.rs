//! Facts of the tables family from small realistic sources.

use cartograph_core::{Confidence, RefusalKind, RepoPath};

use super::{Access, ModelTable};
use crate::{Extractor, Grammar};

fn conf(c: Confidence) -> &'static str {
    c.as_str()
}

/// Renders the family's facts and `computed-table` refusals as one line each, in order: models,
/// uses, direct accesses, refusals.
fn render(path: &str, grammar: Grammar, source: &str) -> Vec<String> {
    let path = RepoPath::new(path).unwrap();
    let facts = Extractor::new().extract(&path, grammar, source);
    let mut lines = Vec::new();
    for m in &facts.tables.models {
        let table = match &m.table {
            ModelTable::Declared { name, schema } => {
                schema.as_ref().map_or(name.clone(), |s| format!("{s}.{name}"))
            }
            ModelTable::Default { name, schema, .. } => {
                format!("~{}", schema.as_ref().map_or(name.clone(), |s| format!("{s}.{name}")))
            }
            ModelTable::Django(d) => format!(
                "django bases={} direct={} db_table={} label={}/{} exact={} abstract={} proxy={}",
                d.bases.join(","),
                d.direct,
                d.db_table.as_deref().unwrap_or("-"),
                d.app_label.as_deref().unwrap_or("-"),
                d.folder_label.as_deref().unwrap_or("-"),
                d.folder_label_exact,
                d.is_abstract,
                d.proxy
            ),
        };
        lines.push(format!("model {} {} {table}", m.framework, m.name));
    }
    for u in &facts.tables.uses {
        let access = if u.access == Access::Read { "read" } else { "write" };
        lines.push(format!("{access} {} via {} {}", u.model, u.via, conf(u.confidence)));
    }
    for a in &facts.tables.accesses {
        let access = if a.access == Access::Read { "read" } else { "write" };
        let table = a.schema.as_ref().map_or(a.table.clone(), |s| format!("{s}.{}", a.table));
        let on = a.instance.as_ref().map_or(String::new(), |i| format!(" on imported {i}"));
        lines.push(format!("{access} table {table} {} {}{on}", a.framework, conf(a.confidence)));
    }
    for r in &facts.refusals {
        if r.kind == RefusalKind::ComputedTable {
            lines.push(format!("refused line {}", r.location.line));
        }
    }
    lines
}

/// The facts of one file, a line each.
fn described(path: &str, grammar: Grammar, source: &str) -> String {
    render(path, grammar, source).join("\n")
}

#[test]
fn sqlmodel_models_of_the_fastapi_template() {
    let source = r#"
import uuid
from sqlmodel import Field, Relationship, SQLModel

class UserBase(SQLModel):
    email: str = Field(unique=True, index=True, max_length=255)

class User(UserBase, table=True):
    id: uuid.UUID = Field(default_factory=uuid.uuid4, primary_key=True)
    items: list["Item"] = Relationship(back_populates="owner", cascade_delete=True)

class Item(ItemBase, table=True):
    id: uuid.UUID = Field(default_factory=uuid.uuid4, primary_key=True)

class ItemTag(SQLModel, table=True):
    __tablename__ = "item_tags"
    __table_args__ = {"schema": "catalog"}
"#;
    check!("backend/app/models.py", Grammar::Python, source);
}

#[test]
fn sqlmodel_crud_uses() {
    let source = r#"
from sqlmodel import Session, select, delete, func
from app.models import Item, User, UserCreate

def create_user(*, session: Session, user_create: UserCreate) -> User:
    db_obj = User.model_validate(user_create, update={"x": 1})
    session.add(db_obj)
    session.commit()
    return db_obj

def get_user_by_email(*, session: Session, email: str) -> User | None:
    statement = select(User).where(User.email == email)
    return session.exec(statement).first()

def read_items(session: Session):
    count = session.exec(select(func.count()).select_from(Item)).one()
    items = session.exec(select(Item.id, Item.title).offset(0)).all()
    return items

def delete_item(session: Session, id):
    item = session.get(Item, id)
    session.delete(item)

def update_user(*, session: Session, db_user: User, user_in) -> User:
    session.add(db_user)

def purge(session, user):
    session.exec(delete(Item).where(Item.owner_id == user.id))

def unknown(session, thing):
    session.add(thing)
    session.delete(thing)
"#;
    check!("backend/app/crud.py", Grammar::Python, source);
}

#[test]
fn sqlalchemy_declarative_tables_and_queries() {
    let source = r#"
import sqlalchemy as sa
from sqlalchemy import Table, Column, select
from sqlalchemy.orm import declared_attr

class Invoice(Base):
    __tablename__ = "invoices"
    __table_args__ = (sa.UniqueConstraint("number"), {"schema": "billing"})

class Dynamic(Base):
    @declared_attr
    def __tablename__(cls):
        return cls.__name__.lower()

association = Table("invoice_tags", Base.metadata, Column("a"), schema="billing")
computed = Table(prefix + "_log", metadata)

def run(session, data):
    invoice = Invoice(**data)
    session.add(invoice)
    session.add_all([Invoice(), Invoice()])
    session.query(Invoice).filter(Invoice.id == 1).delete()
    rows = session.query(Invoice).all()
    session.execute(sa.update(Invoice).values(paid=True))
    session.execute(select(association))
    "x".join(parts)
"#;
    check!("billing/models.py", Grammar::Python, source);
}

#[test]
fn flask_sqlalchemy_default_names() {
    let source = r#"
from flask_sqlalchemy import SQLAlchemy
db = SQLAlchemy()

class UserProfile(db.Model):
    id = db.Column(db.Integer, primary_key=True)

def views(name):
    UserProfile.query.filter_by(name=name).first()
    UserProfile.query.filter_by(name=name).delete()
    db.session.add(UserProfile(name=name))
"#;
    check!("app/models.py", Grammar::Python, source);
}

#[test]
fn django_models_and_managers() {
    let source = r#"
from django.db import models
from netbox.models import PrimaryModel

class Order(models.Model):
    total = models.DecimalField()

class Payment(models.Model):
    class Meta:
        db_table = "payments"

class Base(models.Model):
    class Meta:
        abstract = True

class Site(PrimaryModel):
    class Meta:
        app_label = "dcim"

class Plain:
    pass

def views(request, pk):
    orders = Order.objects.filter(total__gt=0)
    Order.objects.filter(total=0).update(total=1)
    Payment.objects.create(amount=1)
    order = Order.objects.get(pk=pk)
    order.save()
    Order(total=3).save()
    other.delete()
    Order.objects.none()
    Order.objects.restrict(user)
    Order.objects.create_user(name="x")
    Order.objects.aget(pk=1)
"#;
    check!("shop/models.py", Grammar::Python, source);
}

#[test]
fn django_app_label_from_a_models_package() {
    let source = "from django.db import models\n\nclass Device(models.Model):\n    pass\n";
    check!("netbox/dcim/models/devices.py", Grammar::Python, source);
    check!("netbox/extras/models/models.py", Grammar::Python, source);
    check!("netbox/dcim/things.py", Grammar::Python, source);
}

#[test]
fn raw_sql_in_python() {
    let source = r#"
def report(cursor, table, oid):
    """Select the rows from the database."""
    cursor.execute("SELECT id FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.id = %s", (oid,))
    cursor.execute(f"UPDATE orders SET status = {status!r} WHERE id = {oid}")
    cursor.execute(f"DELETE FROM {table} WHERE id = %s", (oid,))
    cursor.execute("INSERT INTO " + table + " VALUES (1)")
    cursor.execute(
        "SELECT * "
        "FROM audit.events"
    )
    log.info("Select a file from the list")
"#;
    check!("app/report.py", Grammar::Python, source);
}

#[test]
fn raw_sql_placeholders_catalogs_and_ctes() {
    let source = r#"
_STRIP_SQL = r"""
    UPDATE __TABLE__
    SET value = replace(value, '\u0000', '')
"""

def migrate(conn, table):
    conn.execute(_STRIP_SQL.replace("__TABLE__", table))
    conn.execute("SELECT CONSTRAINT_NAME FROM information_schema.TABLE_CONSTRAINTS WHERE TABLE_NAME = %s", (table,))
    conn.execute("SELECT setting FROM pg_settings WHERE name = 'server_version_num'")
    conn.execute("WITH stale AS (SELECT id FROM xcom WHERE value IS NULL) DELETE FROM xcom_archive WHERE id IN (SELECT id FROM stale)")
    conn.execute("SELECT n FROM generate_series(1, 10) AS n")
"#;
    check!("migrations/0049_strip.py", Grammar::Python, source);
    let path = RepoPath::new("migrations/0049_strip.py").unwrap();
    let facts = Extractor::new().extract(&path, Grammar::Python, source);
    let reasons: Vec<&str> = facts
        .refusals
        .iter()
        .filter(|r| r.kind == RefusalKind::ComputedTable)
        .map(|r| r.reason.as_str())
        .collect();
    assert_eq!(reasons, ["SQL names its table through a placeholder"]);
}

#[test]
fn raw_sql_in_typescript() {
    let source = r#"
export async function load(id: string, table: string) {
  await pool.query("SELECT * FROM users WHERE id = $1", [id]);
  await sql`INSERT INTO audit_log (event) VALUES (${id})`;
  await pool.query(`SELECT * FROM ${table}`);
  const label = "Select an option";
}
"#;
    check!("server/db.ts", Grammar::TypeScript, source);
}

#[test]
fn typeorm_entities() {
    let source = r#"
import { Entity, PrimaryGeneratedColumn } from "typeorm";

@Entity({ name: "orders", schema: "shop" })
export class Order {
  @PrimaryGeneratedColumn() id: number;
}

@Entity()
export class LineItem {}

@Entity("customers")
class Customer {}

@Entity(tableName)
class Computed {}
"#;
    check!("src/entities.ts", Grammar::TypeScript, source);
}

#[test]
fn drizzle_tables_and_queries() {
    let source = r#"
import { pgTable, serial, text } from "drizzle-orm/pg-core";
export const users = pgTable("users", { id: serial("id").primaryKey(), name: text("name") });
export const posts = sqliteTable("posts", { id: integer("id") });

export async function run(db) {
  await db.select().from(users).innerJoin(posts, eq(posts.authorId, users.id));
  await db.insert(users).values({ name: "x" });
  await db.delete(posts).where(eq(posts.id, 1));
  Array.from(users);
}
"#;
    check!("src/db/schema.ts", Grammar::TypeScript, source);
}

#[test]
fn knex_queries() {
    let source = r#"
const knex = require("knex")({ client: "pg" });
const pg = require("knex")(config);

async function handler(id, name) {
  const rows = await knex("orders").where({ id });
  await knex("audit as a").insert({ id });
  await pg.select("*").from("customers").where({ id });
  await knex.insert({ id }).into("events");
  await knex.from("sessions").where({ id }).del();
  await knex(name).select();
  Array.from("abc");
}
"#;
    check!("src/repo.js", Grammar::JavaScript, source);
}

#[test]
fn knex_on_an_imported_instance_is_left_to_the_linker() {
    let source = r#"
import { db } from "./db.js";
import { t } from "@/i18n";
import { Entity } from "typeorm";

export async function record() {
  await db("audit_log").insert({ a: 1 });
  return db<Entry>("audit_log").where({}).orderBy("created_at");
}
"#;
    check!("bff/src/audit.ts", Grammar::TypeScript, source);
}
