//! Tables: `defines`, `reads` and `writes` edges between modules and `table` nodes.
//!
//! Models are indexed by (module, name) first. A use names a model as written (`Item`,
//! `models.Item`); it is followed to the declaring module through the same file's classes, then
//! the file's import bindings, then re-exports in the imported module (a few hops, so
//! `from app.models import Item` reaches `app/models/item.py` through `app/models/__init__.py`;
//! star imports are followed when import resolution binds them under the local name `*`).
//! A use whose name leads to no model yields nothing: `select(x)` on something that is not a model
//! is not a table access. Django classes become models when a base, followed the same way across
//! modules, leads to `models.Model`; abstract and proxy models declare no table.

use std::collections::HashMap;

use crate::recognise::tables::{
    Access, DjangoClass, ModelFact, ModelTable, ModelUse, SqlaSubclass,
};
use cartograph_core::{
    Confidence, Edge, EdgeKind, Evidence, Node, NodeKey, Provenance, RepoPath, SourceLocation,
};

use crate::recognise::link::{BindingTarget, LinkInput, Linked};

/// How far re-exports and dotted names are followed.
const MAX_HOPS: usize = 6;
/// How many bindings one name resolution may look at in all (star imports fan out).
const MAX_STEPS: usize = 64;

/// A model and the table it declares.
struct Model<'a> {
    path: &'a RepoPath,
    fact: &'a ModelFact,
    /// The table, once known; `None` for an abstract or proxy model or a Django candidate that
    /// is not a model.
    table: Option<Declared>,
}

/// A model's table and how it is known.
struct Declared {
    key: NodeKey,
    provenance: Provenance,
    confidence: Confidence,
    /// How the name was derived, for evidence (`by __tablename__`, `by SQLModel's default ...`).
    how: String,
    /// True for a single-table inheritance subclass, mapped onto its parent's table: it declares
    /// no table of its own, and `how` says whose table it uses.
    inherited: bool,
}

/// Models of every file, indexed by (module path, name).
struct Models<'a> {
    all: Vec<Model<'a>>,
    by_name: HashMap<(&'a str, &'a str), usize>,
    /// By (framework, name): the first model with them, and whether there are others.
    by_framework: HashMap<(&'a str, &'a str), (usize, bool)>,
}

impl<'a> Models<'a> {
    fn collect(input: &LinkInput<'a>) -> Self {
        let mut all = Vec::new();
        let mut by_name = HashMap::new();
        let mut by_framework: HashMap<(&'a str, &'a str), (usize, bool)> = HashMap::new();
        for file in &input.files {
            for fact in &file.facts.tables.models {
                let table = declared(fact);
                if !fact.name.is_empty() {
                    by_name.entry((file.path.as_str(), fact.name.as_str())).or_insert(all.len());
                }
                by_framework
                    .entry((fact.framework, fact.name.as_str()))
                    .and_modify(|(_, more)| *more = true)
                    .or_insert((all.len(), false));
                all.push(Model { path: file.path, fact, table });
            }
        }
        Self { all, by_name, by_framework }
    }

    /// The model `name` refers to in `file`: a class of the file, an imported one, or one reached
    /// through a module binding (`models.Item`), following re-exports.
    fn resolve(&self, input: &LinkInput<'_>, file: &RepoPath, name: &str) -> Option<usize> {
        // A bounded depth-first search: each step follows one binding, so a star import
        // (`from .models import *`) can fan out to the modules it re-exports.
        let mut stack: Vec<(RepoPath, String, usize)> = vec![(file.clone(), name.to_owned(), 0)];
        let mut steps = 0;
        while let Some((file, name, hops)) = stack.pop() {
            steps += 1;
            if steps > MAX_STEPS {
                return None;
            }
            if let Some(&i) = self.by_name.get(&(file.as_str(), name.as_str())) {
                return Some(i);
            }
            if hops >= MAX_HOPS {
                continue;
            }
            if let Some((prefix, last)) = name.rsplit_once('.') {
                if let Some(binding) = input.binding(&file, prefix)
                    && let BindingTarget::Module(path) = &binding.target
                    && binding.member.is_none()
                {
                    stack.push((path.clone(), last.to_owned(), hops + 1));
                }
                continue;
            }
            if let Some(binding) = input.binding(&file, &name) {
                if let BindingTarget::Module(path) = &binding.target
                    && let Some(member) = binding.member.as_deref().filter(|m| *m != "default")
                {
                    stack.push((path.clone(), member.to_owned(), hops + 1));
                }
                continue;
            }
            // Neither defined nor bound by name here: the star imports of the file, the last one
            // first as Python does.
            let Some(view) = input.file(&file) else { continue };
            if view.facts.tables.classes.contains(&name) {
                continue;
            }
            let stars = view.bindings;
            for star in stars.iter().filter(|b| &*b.local == "*") {
                if let BindingTarget::Module(path) = &star.target {
                    stack.push((path.clone(), name.clone(), hops + 1));
                }
            }
        }
        None
    }

    /// The one model of `framework` whose name is the last part of `name`, when `name`'s first
    /// part is bound by an import of `file` to a module of the repository; `None` when no model
    /// or several have that name.
    fn unique(
        &self,
        input: &LinkInput<'_>,
        file: &RepoPath,
        name: &str,
        framework: &str,
    ) -> Option<usize> {
        let first = name.split('.').next().unwrap_or(name);
        let binding = input.binding(file, first)?;
        if !matches!(binding.target, BindingTarget::Module(_)) {
            return None;
        }
        let last = name.rsplit('.').next().unwrap_or(name);
        // Indexed: a scan of every model for each use made linking quadratic in the tree.
        match self.by_framework.get(&(framework, last)) {
            Some(&(i, false)) => Some(i),
            _ => None,
        }
    }

    /// Decides which Django candidates are models: those whose bases lead to `models.Model`,
    /// across modules. Iterates to a fixed point (bounded by the inheritance depth).
    fn settle_django(&mut self, input: &LinkInput<'_>) {
        let candidates: Vec<usize> = (0..self.all.len())
            .filter(|&i| {
                self.all.get(i).is_some_and(|m| matches!(m.fact.table, ModelTable::Django(_)))
            })
            .collect();
        let mut model_like: Vec<bool> = vec![false; self.all.len()];
        for &i in &candidates {
            if let Some(Model { fact, path, .. }) = self.all.get(i)
                && let ModelTable::Django(class) = &fact.table
                && (class.direct || class.bases.iter().any(|b| django_base(input, path, b)))
                && let Some(flag) = model_like.get_mut(i)
            {
                *flag = true;
            }
        }
        for _ in 0..16 {
            let mut changed = false;
            for &i in &candidates {
                if model_like.get(i).copied().unwrap_or(true) {
                    continue;
                }
                let Some(model) = self.all.get(i) else { continue };
                let ModelTable::Django(class) = &model.fact.table else { continue };
                let inherits = class.bases.iter().any(|base| {
                    self.resolve(input, model.path, base)
                        .is_some_and(|b| b != i && model_like.get(b).copied().unwrap_or(false))
                });
                if inherits && let Some(flag) = model_like.get_mut(i) {
                    *flag = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        for i in candidates {
            let is_model = model_like.get(i).copied().unwrap_or(false);
            if let Some(model) = self.all.get_mut(i)
                && let ModelTable::Django(class) = &model.fact.table
            {
                model.table = if is_model { django_table(&model.fact.name, class) } else { None };
            }
        }
    }
}

impl Models<'_> {
    /// Settles the table of each SQLAlchemy class that may inherit a model of the tree, parents
    /// first.
    fn settle_sqlalchemy(&mut self, input: &LinkInput<'_>) {
        let mut pending: Vec<usize> = (0..self.all.len())
            .filter(|&i| {
                self.all.get(i).is_some_and(|m| matches!(m.fact.table, ModelTable::SqlaSubclass(_)))
            })
            .collect();
        // A class waits while its parent is still pending; bounded by the inheritance depth.
        for _ in 0..16 {
            let mut settled = Vec::new();
            for &i in &pending {
                let Some(model) = self.all.get(i) else { continue };
                let ModelTable::SqlaSubclass(class) = &model.fact.table else { continue };
                let parents: Vec<Option<usize>> = class
                    .bases
                    .iter()
                    .map(|b| self.resolve(input, model.path, b).filter(|&p| p != i))
                    .collect();
                if parents.iter().flatten().any(|p| pending.contains(p)) {
                    continue;
                }
                // Every base must be a model with a table: a mixin beside the parent may
                // declare the primary key that decides the inheritance.
                let parent = match parents.as_slice() {
                    [Some(p), rest @ ..]
                        if rest.iter().all(|r| {
                            r.and_then(|r| self.all.get(r)).is_some_and(|m| m.table.is_some())
                        }) =>
                    {
                        self.all
                            .get(*p)
                            .filter(|m| matches!(m.fact.framework, "sqlalchemy" | "sqlmodel"))
                            .and_then(|m| Some((m.fact.name.as_str(), m.table.as_ref()?)))
                    }
                    _ => None,
                };
                settled.push((i, subclass_table(&model.fact.name, class, parent)));
            }
            if settled.is_empty() {
                break;
            }
            for (i, table) in settled {
                pending.retain(|p| *p != i);
                if let Some(model) = self.all.get_mut(i) {
                    model.table = table;
                }
            }
        }
    }
}

/// The table of a SQLAlchemy class that may inherit `parent` (its name and table, when every
/// base is a model of the tree).
fn subclass_table(
    name: &str,
    class: &SqlaSubclass,
    parent: Option<(&str, &Declared)>,
) -> Option<Declared> {
    let Some((parent_name, parent_table)) = parent else {
        // No mapped parent: a literal `__tablename__` names the table, as for any model.
        return class.tablename.as_ref().map(|table| Declared {
            key: NodeKey::table(class.schema.as_deref(), table),
            provenance: Provenance::Syntax,
            confidence: Confidence::Certain,
            how: "by name".to_owned(),
            inherited: false,
        });
    };
    let single = |why: &str| Declared {
        key: parent_table.key.clone(),
        provenance: Provenance::Convention,
        confidence: parent_table.confidence.max(Confidence::Likely),
        how: format!("mapped onto the table of {parent_name} by single-table inheritance: {why}"),
        inherited: true,
    };
    match (&class.tablename, class.primary_key) {
        (Some(_), _) => Some(single(
            "Flask-SQLAlchemy maps a subclass that declares no primary key column onto its \
             parent's table and drops its __tablename__",
        )),
        (None, false) => Some(single("no __tablename__ and no primary key column of its own")),
        (None, true) if class.flask => {
            let table = super::sqlalchemy::snake_case(name);
            Some(Declared {
                key: NodeKey::table(class.schema.as_deref(), &table),
                provenance: Provenance::Convention,
                confidence: Confidence::Likely,
                how: format!(
                    "by Flask-SQLAlchemy's default snake_case table name of a joined-table \
                     inheritance subclass of {parent_name}"
                ),
                inherited: false,
            })
        }
        // Plain SQLAlchemy names no table for a subclass without `__tablename__`.
        (None, true) => None,
    }
}

/// A base imported from Django itself that makes a model: `Model`, `AbstractUser`,
/// `AbstractBaseUser` (`from django.contrib.auth.models import AbstractUser`), or an abstract
/// model of a common Django app (`treebeard`'s `MP_Node`).
fn django_base(input: &LinkInput<'_>, path: &RepoPath, base: &str) -> bool {
    let (local, last) = match base.split_once('.') {
        Some((first, _)) => (first, base.rsplit('.').next().unwrap_or(base)),
        None => (base, base),
    };
    let Some(binding) = input.binding(path, local) else { return false };
    let BindingTarget::Package(package) = &binding.target else { return false };
    let name = binding.member.as_deref().filter(|_| local == base).unwrap_or(last);
    match &**package {
        "pypi:django" => name == "Model" || name.starts_with("Abstract"),
        // Abstract models of common Django apps: django-treebeard's trees, django-mptt's,
        // django-polymorphic's.
        "pypi:treebeard" => matches!(name, "MP_Node" | "NS_Node" | "AL_Node"),
        "pypi:mptt" => name == "MPTTModel",
        "pypi:polymorphic" => name == "PolymorphicModel",
        _ => false,
    }
}

/// The table of a non-Django model.
fn declared(fact: &ModelFact) -> Option<Declared> {
    let (name, schema, provenance, confidence, how) = match &fact.table {
        ModelTable::Declared { name, schema } => {
            (name, schema, Provenance::Syntax, Confidence::Certain, "by name".to_owned())
        }
        ModelTable::Default { name, schema, rule } => {
            (name, schema, Provenance::Convention, Confidence::Likely, format!("by {rule}"))
        }
        ModelTable::Possible { name, schema, rule } => {
            (name, schema, Provenance::Convention, Confidence::Possible, format!("by {rule}"))
        }
        ModelTable::Django(_) | ModelTable::SqlaSubclass(_) => return None,
    };
    let key = NodeKey::table(schema.as_deref(), name);
    Some(Declared { key, provenance, confidence, how, inherited: false })
}

/// The table of a concrete Django model.
fn django_table(class_name: &str, class: &DjangoClass) -> Option<Declared> {
    if class.is_abstract || class.proxy {
        return None;
    }
    if let Some(table) = &class.db_table {
        return Some(Declared {
            key: NodeKey::table(None, table),
            provenance: Provenance::Syntax,
            confidence: Confidence::Certain,
            how: "by Meta.db_table".to_owned(),
            inherited: false,
        });
    }
    let model = class_name.to_lowercase();
    let (label, confidence, how) = match (&class.app_label, &class.folder_label) {
        (Some(label), _) => (
            label,
            Confidence::Likely,
            format!("by Django's default <app_label>_<model> name with Meta.app_label {label}"),
        ),
        (None, Some(label)) if class.folder_label_exact => (
            label,
            Confidence::Likely,
            format!(
                "by Django's default <app_label>_<model> name, the app label {label} taken from \
                 the app's folder"
            ),
        ),
        (None, Some(label)) => (
            label,
            Confidence::Possible,
            format!(
                "by Django's default <app_label>_<model> name, the app label {label} guessed from \
                 the folder of a module that is not the app's models module"
            ),
        ),
        (None, None) => return None,
    };
    Some(Declared {
        key: NodeKey::table(None, &format!("{label}_{model}")),
        provenance: Provenance::Convention,
        confidence,
        how,
        inherited: false,
    })
}

fn framework_label(framework: &str) -> &str {
    match framework {
        "sqlalchemy" => "SQLAlchemy",
        "sqlmodel" => "SQLModel",
        "django-models" => "Django",
        "typeorm" => "TypeORM",
        "drizzle" => "Drizzle",
        "sequelize" => "Sequelize",
        "peewee" => "Peewee",
        other => other,
    }
}

/// `model` for a class, `table object` for a variable holding a table (`items = Table(...)`,
/// `users = pgTable(...)`).
fn model_word(name: &str) -> &'static str {
    if name.starts_with(|c: char| c.is_ascii_uppercase()) { "model" } else { "table object" }
}

fn table_node(key: &NodeKey, framework: &str) -> Node {
    let mut node = Node::new(key.clone());
    node.attrs.framework = Some(framework.to_owned());
    node
}

fn edge_kind(access: Access) -> EdgeKind {
    match access {
        Access::Read => EdgeKind::Reads,
        Access::Write => EdgeKind::Writes,
    }
}

/// Links this family's facts.
pub fn link(input: &LinkInput<'_>, linked: &mut Linked) {
    let mut models = Models::collect(input);
    models.settle_django(input);
    models.settle_sqlalchemy(input);
    defines(&models, linked);
    uses(input, &models, linked);
    accesses(input, linked);
}

/// A `defines` edge from each model's module to its table.
fn defines(models: &Models<'_>, linked: &mut Linked) {
    for model in &models.all {
        let Some(table) = model.table.as_ref().filter(|t| !t.inherited) else {
            continue;
        };
        let what = if model.fact.name.is_empty() {
            format!("a {} table declaration", framework_label(model.fact.framework))
        } else {
            format!(
                "{} {} {}",
                framework_label(model.fact.framework),
                model_word(&model.fact.name),
                model.fact.name
            )
        };
        linked.edge(
            Edge {
                kind: EdgeKind::Defines,
                from: NodeKey::module(model.path),
                to: table.key.clone(),
                evidence: Evidence::new(format!(
                    "{what} declares table {} {}",
                    table.key.name(),
                    table.how
                )),
                provenance: table.provenance,
                confidence: table.confidence,
                location: SourceLocation::new(
                    model.path.clone(),
                    model.fact.line,
                    model.fact.column,
                ),
                type_only: false,
                occurrences: 1,
            },
            table_node(&table.key, model.fact.framework),
        );
        if let ModelTable::Django(class) = &model.fact.table {
            join_tables(model, class, table, linked);
        }
    }
}

/// The join table of each `ManyToManyField` without `through=` of a concrete Django model:
/// `<model table>_<field>`, as Django names it.
fn join_tables(model: &Model<'_>, class: &DjangoClass, table: &Declared, linked: &mut Linked) {
    for field in &class.many_to_many {
        let name = format!("{}_{field}", table.key.name());
        // Django shortens a longer name with a hash of it (PostgreSQL allows 63 characters).
        if name.len() > 63 {
            continue;
        }
        let key = NodeKey::table(None, &name);
        linked.edge(
            Edge {
                kind: EdgeKind::Defines,
                from: NodeKey::module(model.path),
                to: key.clone(),
                evidence: Evidence::new(format!(
                    "Django ManyToManyField {}.{field} declares join table {} by Django's \
                     default <model table>_<field> name",
                    model.fact.name,
                    key.name()
                )),
                provenance: Provenance::Convention,
                confidence: table.confidence.max(Confidence::Likely),
                location: SourceLocation::new(
                    model.path.clone(),
                    model.fact.line,
                    model.fact.column,
                ),
                type_only: false,
                occurrences: 1,
            },
            table_node(&key, model.fact.framework),
        );
    }
}

/// The table of a model that Django or a common Django app defines (`django.contrib.auth`'s
/// `User` → `auth_user`, Django REST framework's `Token` → `authtoken_token`), when `name` is
/// imported from that package under the model's name.
fn django_contrib_table(input: &LinkInput<'_>, file: &RepoPath, name: &str) -> Option<NodeKey> {
    const TABLES: &[(&str, &str, &str)] = &[
        ("pypi:django", "User", "auth_user"),
        ("pypi:django", "Group", "auth_group"),
        ("pypi:django", "Permission", "auth_permission"),
        ("pypi:django", "ContentType", "django_content_type"),
        ("pypi:django", "Session", "django_session"),
        ("pypi:django", "Site", "django_site"),
        ("pypi:django", "LogEntry", "django_admin_log"),
        ("pypi:rest_framework", "Token", "authtoken_token"),
        ("pypi:oauth2_provider", "AccessToken", "oauth2_provider_accesstoken"),
        ("pypi:oauth2_provider", "RefreshToken", "oauth2_provider_refreshtoken"),
        ("pypi:oauth2_provider", "Application", "oauth2_provider_application"),
        ("pypi:allauth", "SocialApp", "socialaccount_socialapp"),
        ("pypi:allauth", "SocialAccount", "socialaccount_socialaccount"),
        ("pypi:allauth", "SocialToken", "socialaccount_socialtoken"),
        ("pypi:allauth", "EmailAddress", "account_emailaddress"),
    ];
    if name.contains('.') {
        return None;
    }
    // Followed through modules that import the model and are imported in turn
    // (`from .models import User` where `models.py` imports Django's `User`).
    let mut binding = input.binding(file, name)?;
    for _ in 0..MAX_HOPS {
        let BindingTarget::Module(path) = &binding.target else { break };
        let member = binding.member.as_deref()?;
        binding = input.binding(path, member)?;
    }
    let BindingTarget::Package(package) = &binding.target else { return None };
    let member = binding.member.as_deref()?;
    TABLES
        .iter()
        .find(|(p, model, _)| *p == &**package && *model == member)
        .map(|(_, _, table)| NodeKey::table(None, table))
}

/// A use of a model Django itself defines: `User.objects.filter(...)` with `User` imported from
/// `django.contrib.auth.models`.
fn contrib_use(input: &LinkInput<'_>, file: &RepoPath, model_use: &ModelUse, linked: &mut Linked) {
    let Some(key) = django_contrib_table(input, file, &model_use.model) else { return };
    linked.edge(
        Edge {
            kind: edge_kind(model_use.access),
            from: NodeKey::module(file),
            to: key.clone(),
            evidence: Evidence::new(format!(
                "{} on {} {} table {} of Django's own model {}",
                model_use.via,
                model_use.model,
                model_use.access.verb(),
                key.name(),
                model_use.model
            )),
            provenance: Provenance::Resolver,
            confidence: model_use.confidence.max(Confidence::Likely),
            location: SourceLocation::new(file.clone(), model_use.line, model_use.column),
            type_only: false,
            occurrences: 1,
        },
        table_node(&key, "django-models"),
    );
}

/// `reads` / `writes` edges for queries and mutations through a model's name.
fn uses(input: &LinkInput<'_>, models: &Models<'_>, linked: &mut Linked) {
    for file in &input.files {
        for model_use in &file.facts.tables.uses.to_vec() {
            let resolved = models.resolve(input, file.path, &model_use.model);
            // A use only one framework's models can take (`M.findAll()`: Sequelize) may name,
            // through a barrel whose re-exports are not followed, the one model of that
            // framework with the name, when the file imports the name.
            let (i, by_name) = match (resolved, &model_use.framework) {
                (Some(i), _) => (i, false),
                (None, Some(framework)) => {
                    match models.unique(input, file.path, &model_use.model, framework) {
                        Some(i) => (i, true),
                        None => continue,
                    }
                }
                (None, None) => {
                    contrib_use(input, file.path, model_use, linked);
                    continue;
                }
            };
            let Some(model) = models.all.get(i) else { continue };
            if model_use.framework.as_deref().is_some_and(|f| f != model.fact.framework) {
                continue;
            }
            let Some(table) = &model.table else { continue };
            if let Some(attribute) = &model_use.attribute
                && !maps(input, model, attribute)
            {
                continue;
            }
            let same_file = model.path == file.path;
            let provenance = if by_name {
                Provenance::Heuristic
            } else if same_file && table.provenance == Provenance::Syntax {
                Provenance::Syntax
            } else if table.provenance == Provenance::Convention {
                Provenance::Convention
            } else {
                Provenance::Resolver
            };
            let confidence = model_use.confidence.max(table.confidence);
            let mut evidence = format!(
                "{} on {} {} table {} of {} {} {} in {}",
                model_use.via,
                model_use.model,
                model_use.access.verb(),
                table.key.name(),
                framework_label(model.fact.framework),
                model_word(&model.fact.name),
                model.fact.name,
                model.path.as_str()
            );
            if table.inherited {
                evidence.push_str(&format!(" ({})", table.how));
            }
            if let Some(reason) = &model_use.reason {
                evidence.push_str(&format!(" ({reason})"));
            }
            if by_name {
                evidence.push_str(&format!(
                    " (the imported name matched the only {} model so named)",
                    framework_label(model.fact.framework)
                ));
            }
            linked.edge(
                Edge {
                    kind: edge_kind(model_use.access),
                    from: NodeKey::module(file.path),
                    to: table.key.clone(),
                    evidence: Evidence::new(evidence),
                    provenance,
                    confidence,
                    location: SourceLocation::new(
                        file.path.clone(),
                        model_use.line,
                        model_use.column,
                    ),
                    type_only: false,
                    occurrences: 1,
                },
                table_node(&table.key, model.fact.framework),
            );
        }
    }
}

/// True when the class body of `model` maps `attribute` (a column, relationship, synonym or
/// hybrid property), so that setting it on a loaded instance writes the table. An attribute the
/// class only inherits is not known, and is not taken to be mapped.
fn maps(input: &LinkInput<'_>, model: &Model<'_>, attribute: &str) -> bool {
    input.file(model.path).is_some_and(|view| {
        view.facts
            .tables
            .mapped
            .iter()
            .any(|m| m.class == model.fact.name && m.attributes.iter().any(|a| a == attribute))
    })
}

/// True when `name` in `file` is, or is imported from, a variable assigned from `knex(...)`.
fn leads_to_knex(input: &LinkInput<'_>, file: &RepoPath, name: &str) -> bool {
    let mut file = file.clone();
    let mut name = name.to_owned();
    for _ in 0..MAX_HOPS {
        let Some(view) = input.file(&file) else { return false };
        if view.facts.tables.knex_instances.contains(&name) {
            return true;
        }
        let Some(binding) = input.binding(&file, &name) else { return false };
        let (BindingTarget::Module(path), Some(member)) = (&binding.target, &binding.member) else {
            return false;
        };
        file = path.clone();
        name = member.to_string();
    }
    false
}

/// `reads` / `writes` edges for tables named directly (raw SQL, knex).
fn accesses(input: &LinkInput<'_>, linked: &mut Linked) {
    for file in &input.files {
        for access in &file.facts.tables.accesses {
            let provenance = match &access.instance {
                None => access.provenance,
                Some(name) if leads_to_knex(input, file.path, name) => Provenance::Resolver,
                Some(_) => continue,
            };
            let key = NodeKey::table(access.schema.as_deref(), &access.table);
            let evidence = if access.framework == "raw-sql" {
                format!(
                    "SQL {} in a string literal {} table {}",
                    access.via,
                    access.access.verb(),
                    key.name()
                )
            } else {
                format!("{} {} table {}", access.via, access.access.verb(), key.name())
            };
            linked.edge(
                Edge {
                    kind: edge_kind(access.access),
                    from: NodeKey::module(file.path),
                    to: key.clone(),
                    evidence: Evidence::new(evidence),
                    provenance,
                    confidence: access.confidence,
                    location: SourceLocation::new(file.path.clone(), access.line, access.column),
                    type_only: false,
                    occurrences: 1,
                },
                table_node(&key, access.framework),
            );
        }
    }
}
