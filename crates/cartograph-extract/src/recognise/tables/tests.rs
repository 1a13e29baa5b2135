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
            ModelTable::Possible { name, schema, .. } => {
                format!("?{}", schema.as_ref().map_or(name.clone(), |s| format!("{s}.{name}")))
            }
            ModelTable::SqlaSubclass(c) => format!(
                "subclass bases={} tablename={} primary_key={} flask={}",
                c.bases.join(","),
                c.tablename.as_deref().unwrap_or("-"),
                c.primary_key,
                c.flask
            ),
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
    for u in &facts.tables.uses.to_vec() {
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
fn sqlalchemy_subclasses_wait_for_their_bases() {
    // Which of these inherit a model is decided at link time; here only what the bodies say.
    let source = r#"
from flask_sqlalchemy import SQLAlchemy
db = SQLAlchemy()

class Vehicle(db.Model):
    __tablename__ = "vehicles"
    id = db.Column(db.Integer, primary_key=True)
    kind = db.Column(db.String(16))
    __mapper_args__ = {"polymorphic_on": kind}

class Truck(Vehicle):
    __tablename__ = "trucks"
    __mapper_args__ = {"polymorphic_identity": "truck"}

class Tractor(Vehicle):
    id = db.Column(db.Integer, db.ForeignKey("vehicles.id"), primary_key=True)
    __mapper_args__ = {"polymorphic_identity": "tractor"}

class Bicycle(Vehicle):
    __mapper_args__ = {"polymorphic_identity": "bicycle"}

class Trailer(Vehicle):
    __tablename__ = "trailers"
    id = db.Column(db.Integer, db.ForeignKey("vehicles.id"), primary_key=True)

class Helper(Vehicle):
    def describe(self):
        return "not mapped by its body"

class Settings(object):
    primary_key = True
"#;
    check!("fleet/models.py", Grammar::Python, source);
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

#[test]
fn raw_sql_counts_only_where_it_runs_in_python() {
    let source = r#"
from sqlalchemy import text

ARCHIVE = "INSERT INTO archived_orders SELECT * FROM orders WHERE closed"
EXAMPLES = {"question": "top customers", "answer": "SELECT name FROM customers ORDER BY spend"}
UNUSED = "DELETE FROM scratch"

class Report:
    TOTALS = "SELECT sum(amount) FROM ledger_entries WHERE day = %s"

    def run(self, cursor, day):
        cursor.execute(self.TOTALS, (day,))

def archive(conn, session, table):
    conn.execute(ARCHIVE)
    session.execute(text("UPDATE invoices SET paid = true WHERE id = :id"), {"id": 1})
    stmt = text("SELECT id FROM refunds WHERE id = :id")
    sql = "SELECT * FROM {t} WHERE id = %s".format(t=table)
    conn.execute(sql)
    prompt = "SELECT * FROM revenue"
    llm.ask(prompt)
    logger.warning("DELETE FROM sessions failed: %s", table)
    migrations.RunSQL(sql="DELETE FROM stale_tokens WHERE expires < now()")
"#;
    check!("shop/reports.py", Grammar::Python, source);
}

#[test]
fn raw_sql_counts_only_where_it_runs_in_typescript() {
    let source = r#"
import { sql } from "slonik";

const LIST = `SELECT id, name FROM projects WHERE owner = $1`;
const HELP = { example: "SELECT * FROM customers", note: "an example for the agent" };

export class Store {
  static readonly COUNT = "SELECT count(*) FROM memberships";

  async list(pool, owner: string) {
    await pool.query(LIST, [owner]);
    await pool.one(sql.type(Row)`SELECT * FROM api_keys WHERE id = ${owner}`);
    await prisma.$queryRaw`UPDATE quotas SET used = used + 1`;
    await this.db.query(Store.COUNT);
    const agentTools = [{ sql_query: "SELECT * FROM sales" }];
    await connector.describe("SELECT * FROM inventory");
    console.log(`DELETE FROM jobs failed`);
  }
}
"#;
    check!("server/store.ts", Grammar::TypeScript, source);
}

#[test]
fn raw_sql_skips_more_catalogs() {
    let source = r#"
def inspect(cursor):
    cursor.execute("SELECT name FROM sysobjects WHERE xtype = 'U'")
    cursor.execute("SELECT table_name FROM all_tables")
    cursor.execute("SELECT name FROM system.tables WHERE database = %s")
    cursor.execute("SELECT * FROM user_tab_columns JOIN accounts ON 1 = 1")
"#;
    check!("app/introspect.py", Grammar::Python, source);
}

#[test]
fn sequelize_typescript_tables() {
    let source = r#"
import { Table, Column, Model } from "sequelize-typescript";

@Table({ tableName: "team_members", modelName: "team_member" })
class TeamMember extends Model {}

@Table({ tableName: "audit_events", schema: "audit" })
export class AuditEvent extends Model {}

@Table
export default class Category extends Model {}

@Table({ modelName: "person", timestamps: false })
class Person extends Model {}

@Table({ freezeTableName: true })
class Inventory extends Model {}

@Table({ tableName: prefix + "logs" })
class Log extends Model {}

export async function load(id: string) {
  await TeamMember.findAll({ where: { id } });
  await TeamMember.scope("active").findOne({ where: { id } });
  await AuditEvent.create({ id });
  await Category.destroy({ where: { id } });
  await this.Other.findAll();
  await api.findAll();
}
"#;
    check!("server/models/team.ts", Grammar::TypeScript, source);
}

#[test]
fn sequelize_define_and_init() {
    let source = r#"
const { Sequelize, DataTypes, Model } = require("sequelize");
const sequelize = new Sequelize(process.env.DATABASE_URL);

const Tag = sequelize.define("Tag", { name: DataTypes.STRING });
const Vote = sequelize.define("vote", { score: DataTypes.INTEGER }, { tableName: "poll_votes" });
const Entry = sequelize.define("LedgerEntry", { amount: DataTypes.INTEGER }, { underscored: true });
const Flag = sequelize.define("Flag", {}, { modelName: "ignored" });

class Invoice extends Model {}
Invoice.init({ total: DataTypes.INTEGER }, { sequelize, tableName: "invoices" });

class Reminder extends Model {}
Reminder.init({ at: DataTypes.DATE }, { sequelize, modelName: "reminder" });

class Settings extends Model {}
Settings.init({}, { sequelize: db, freezeTableName: true });

i18n.init({ lng: "en" });

async function seed() {
  await Tag.bulkCreate([{ name: "a" }]);
  await Invoice.count();
  await Vote.upsert({ score: 1 });
}
"#;
    check!("src/db/models.js", Grammar::JavaScript, source);
}

#[test]
fn kysely_queries() {
    let source = r#"
import { kysely } from "@app/db";

export async function stats(teamId: number, table: string) {
  const rows = await kysely
    .selectFrom("Team as t")
    .innerJoin("Member as m", "m.teamId", "t.id")
    .leftJoin((eb) => eb.selectFrom("Invite").select("id").as("i"), (j) => j.onTrue())
    .where("t.id", "=", teamId)
    .execute();
  await kysely.insertInto("audit.Event").values({ teamId }).execute();
  await kysely.updateTable("Team").set({ seen: true }).execute();
  await kysely.deleteFrom("Session").where("teamId", "=", teamId).execute();
  await kysely.selectFrom(table).selectAll().execute();
  await other.innerJoin("user.photos", "photo");
}
"#;
    check!("packages/lib/stats.ts", Grammar::TypeScript, source);
}

#[test]
fn peewee_models_and_queries() {
    let source = r#"
import peewee
from peewee import CharField, ForeignKeyField, Model

db = peewee.SqliteDatabase("app.db")

class BaseModel(Model):
    class Meta:
        database = db

class User(BaseModel):
    username = CharField(unique=True)

class Relationship(BaseModel):
    from_user = ForeignKeyField(User, backref="relationships")

    class Meta:
        table_name = "user_relationships"

class Helper:
    pass

def follow(me, other):
    Relationship.create(from_user=me, to_user=other)
    return User.select().where(User.username == "x")

def forget(me):
    User.delete().where(User.id == me.id).execute()
"#;
    check!("app/models.py", Grammar::Python, source);
}

#[test]
fn raw_sql_common_table_expressions_from_fragments_are_not_tables() {
    let source = r#"
function cteQuery(first: boolean) {
  return first
    ? `
    ranked AS (select visit_id, min(created_at) created_at from page_view group by 1)`
    : `
    ranked AS (select visit_id, max(created_at) created_at from page_view group by 1)`;
}

export async function report(filters) {
  const recent = `WITH recent AS (select id from visit where day > {{start}}) select * from recent`;
  await rawQuery(recent, filters);
  return rawQuery(
    `select count(*) from ranked r join visitor v on v.id = r.visit_id ${cteQuery(true)}`,
    filters,
  );
}
"#;
    check!("src/queries/report.ts", Grammar::TypeScript, source);
}
