//! Django models, their managers and their instances.
//!
//! Recognises, in files that mention Django: every class with bases, as a model candidate
//! ([`DjangoClass`]); the linker decides which are concrete models by following the bases across
//! modules to `models.Model` (abstract bases and mixins in other modules included). The table is
//! `Meta.db_table` when it is a literal (`certain`); else Django's default
//! `<app_label>_<model name lower-cased>` (`convention`, `likely`), where the app label is
//! `Meta.app_label` when given, else the name of the folder holding `models.py` or the `models/`
//! package. That folder name is an approximation: an `AppConfig.label` that differs from the folder
//! is not read (and a model outside `models.py` / `models/` takes its own folder, `possible`).
//! Abstract models (`Meta.abstract = True`) and proxy models declare no table. A
//! `ManyToManyField` without `through=` on a concrete model declares Django's join table
//! `<model table>_<field>` (`convention`, at most `likely`; a name over the database's identifier
//! limit (63 characters), which Django shortens with a hash, is left out). A base imported from
//! django-treebeard (`MP_Node`, `NS_Node`, `AL_Node`), django-mptt (`MPTTModel`) or
//! django-polymorphic (`PolymorphicModel`) makes a model like `models.Model`. A use of a model that
//! Django or a common app defines, imported from it (`User` from `django.contrib.auth.models`,
//! DRF's `Token`, django-oauth-toolkit's `AccessToken`, allauth's `SocialApp`), reaches that
//! model's known table (`auth_user`, …; resolver, at most `likely`).
//! Uses: `M.objects.filter/get/all/...` read and `M.objects.create/update/delete/bulk_create/
//! get_or_create/update_or_create/bulk_update` (also later in the chain:
//! `M.objects.filter(...).update(...)`; also `create_user`) write, `certain` once `M` resolves
//! to a model (async `aget`/`acreate` forms too); another manager method (a custom one such as
//! `M.objects.restrict(...)`) is taken to be a read, `possible`; `M.objects.none()` is nothing;
//! `obj.save()` / `obj.delete()` write when `obj` is known to be an `M` in the same function
//! (`likely` when assigned from `M(...)` or `M.objects...`, `possible` when only annotated).
//!
//! Refuses (`computed-table`): a `Meta.db_table` that is not a literal.
//!
//! ```python
//! # shop/models.py
//! class Order(models.Model):                 # defines table shop_order
//!     total = models.DecimalField()
//!
//! class Payment(models.Model):
//!     class Meta:
//!         db_table = "payments"              # defines table payments
//!
//! Order.objects.filter(total__gt=0)          # reads shop_order
//! ```

use cartograph_core::Confidence;
use tree_sitter::Node;

use super::sqlalchemy::{refuse_computed, superclasses};
use super::{
    Access, DjangoClass, ModelFact, ModelTable, Scopes, chained_methods, dotted_name, literal,
    model_use, positional_args,
};
use crate::FileFacts;
use crate::recognise::Context;
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::{position, text};

const WRITES: &[&str] = &[
    "create",
    "get_or_create",
    "update_or_create",
    "bulk_create",
    "bulk_update",
    "update",
    "delete",
    "create_user",
    "create_superuser",
];

/// Django's own manager and queryset methods that read (their `a`-prefixed async forms too).
/// Any other method is a custom manager method, taken to be a read with confidence `possible`.
const READS: &[&str] = &[
    "all",
    "filter",
    "exclude",
    "get",
    "first",
    "last",
    "count",
    "exists",
    "values",
    "values_list",
    "order_by",
    "annotate",
    "aggregate",
    "select_related",
    "prefetch_related",
    "only",
    "defer",
    "distinct",
    "in_bulk",
    "iterator",
    "latest",
    "earliest",
    "get_queryset",
    "using",
    "raw",
    "dates",
    "datetimes",
    "union",
    "intersection",
    "difference",
    "select_for_update",
    "extra",
    "alias",
    "reverse",
    "contains",
    "explain",
    "get_by_natural_key",
];

/// The method without Django's async `a` prefix (`aget` → `get`, `acreate` → `create`).
fn sync_name(method: &str) -> &str {
    method
        .strip_prefix('a')
        .filter(|rest| READS.contains(rest) || WRITES.contains(rest))
        .unwrap_or(method)
}

/// A class with bases in a Django module: a model candidate.
pub(super) fn class(node: Node<'_>, cx: &Context<'_>, facts: &mut FileFacts) {
    let (Some(name), Some(body)) = (node.field("name"), node.field("body")) else {
        return;
    };
    let bases = superclasses(node, cx.source);
    if bases.is_empty() {
        return;
    }
    let class_name = text(name, cx.source);
    let bare_model = cx.source.contains("django.db.models import");
    let direct = bases.iter().any(|b| {
        b == "models.Model" || b == "django.db.models.Model" || (bare_model && b == "Model")
    });
    let mut class = DjangoClass {
        bases,
        direct,
        db_table: None,
        app_label: None,
        folder_label: None,
        folder_label_exact: false,
        is_abstract: false,
        proxy: false,
        many_to_many: many_to_many(body, cx.source),
    };
    if let Some(meta) = meta_body(body, cx.source) {
        let mut cursor = meta.walk();
        for statement in meta.named_children(&mut cursor) {
            let Some((left, right)) = super::assignment_sides(statement) else { continue };
            match text(left, cx.source) {
                "db_table" => match literal(right, cx.source) {
                    Some(table) => class.db_table = Some(table),
                    None => {
                        refuse_computed(
                            cx,
                            statement,
                            &format!("the db_table of Django model {class_name} is computed"),
                            facts,
                        );
                        return;
                    }
                },
                "app_label" => class.app_label = literal(right, cx.source),
                "abstract" => class.is_abstract = text(right, cx.source) == "True",
                "proxy" => class.proxy = text(right, cx.source) == "True",
                _ => {}
            }
        }
    }
    let (label, exact) = folder_label(cx);
    class.folder_label = label;
    class.folder_label_exact = exact;
    let (line, column) = position(name);
    facts.tables.models.push(ModelFact {
        name: class_name.to_owned(),
        line,
        column,
        framework: "django-models",
        table: ModelTable::Django(class),
    });
}

/// The fields `name = models.ManyToManyField(...)` of a class body that have no `through=`.
fn many_to_many(body: Node<'_>, source: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut cursor = body.walk();
    for statement in body.named_children(&mut cursor) {
        let Some((left, right)) = super::assignment_sides(statement) else { continue };
        if left.kind_name() != "identifier"
            || right.kind_name() != "call"
            || !right.field("function").is_some_and(|f| {
                let callee = text(f, source);
                callee == "ManyToManyField" || callee.ends_with(".ManyToManyField")
            })
        {
            continue;
        }
        let Some(args) = right.field("arguments") else { continue };
        let mut inner = args.walk();
        let through = args.named_children(&mut inner).any(|a| {
            a.kind_name() == "keyword_argument"
                && a.field("name").is_some_and(|n| text(n, source) == "through")
        });
        if !through {
            fields.push(text(left, source).to_owned());
        }
    }
    fields
}

/// The body of the nested `class Meta:`.
fn meta_body<'t>(body: Node<'t>, source: &str) -> Option<Node<'t>> {
    let mut cursor = body.walk();
    body.named_children(&mut cursor)
        .find(|s| {
            s.kind_name() == "class_definition"
                && s.field("name").is_some_and(|n| text(n, source) == "Meta")
        })
        .and_then(|m| m.field("body"))
}

/// The app label from the path: the folder holding `models.py` or the `models/` package
/// (exact), else the file's own folder (an approximation).
fn folder_label(cx: &Context<'_>) -> (Option<String>, bool) {
    let components: Vec<&str> = cx.path.components().collect();
    let Some((file, folders)) = components.split_last() else { return (None, false) };
    // The `models/` package first: `extras/models/models.py` belongs to `extras`.
    if let Some(i) = folders.iter().rposition(|f| *f == "models")
        && let Some(app) = i.checked_sub(1).and_then(|j| folders.get(j))
    {
        return (Some((*app).to_owned()), true);
    }
    if *file == "models.py" {
        return (folders.last().map(|f| (*f).to_owned()), true);
    }
    (folders.last().map(|f| (*f).to_owned()), false)
}

/// `M.objects.<method>(...)`, `obj.save()`, `obj.delete()`, `M(...).save()`.
pub(super) fn call(node: Node<'_>, cx: &Context<'_>, scopes: &Scopes, facts: &mut FileFacts) {
    let Some(function) = cx.field(node, "function").filter(|f| f.kind_name() == "attribute") else {
        return;
    };
    let Some(method) = function.field("attribute").map(|a| text(a, cx.source)) else {
        return;
    };
    let Some(object) = function.field("object") else { return };
    let on_manager = object.kind_name() == "attribute"
        && object.field("attribute").is_some_and(|a| text(a, cx.source) == "objects");
    if !on_manager && method != "save" && method != "delete" {
        return;
    }
    if let Some(receiver) = dotted_name(object, cx.source) {
        if let Some(model) = receiver.strip_suffix(".objects") {
            manager_call(node, model, method, cx, facts);
            return;
        }
        if matches!(method, "save" | "delete")
            && object.kind_name() == "identifier"
            && positional_args(node).is_empty()
            && let Some(known) = scopes.get(&receiver)
        {
            facts.tables.uses.push(model_use(
                node,
                known.model.clone(),
                Access::Write,
                format!("{receiver}.{method}()"),
                known.confidence.max(Confidence::Likely),
                Some(known.reason.clone()),
            ));
        }
        return;
    }
    // `M(...).save()`
    if method == "save"
        && object.kind_name() == "call"
        && let Some(model) =
            object.field("function").and_then(|f| dotted_name(f, cx.source)).filter(|m| {
                m.rsplit('.')
                    .next()
                    .is_some_and(|c| c.starts_with(|ch: char| ch.is_ascii_uppercase()))
            })
    {
        let reason = format!("a new {model} is saved");
        facts.tables.uses.push(model_use(
            node,
            model,
            Access::Write,
            "save()",
            Confidence::Likely,
            Some(reason),
        ));
    }
}

/// `M.objects.<method>(...)` and what is chained onto it.
fn manager_call(
    node: Node<'_>,
    model: &str,
    method: &str,
    cx: &Context<'_>,
    facts: &mut FileFacts,
) {
    let chain = chained_methods(node, cx.source);
    let write = std::iter::once(method)
        .chain(chain.iter().map(String::as_str))
        .find(|m| WRITES.contains(&sync_name(m)));
    // `M.objects.none()` builds an empty queryset without touching the table.
    if method == "none" {
        return;
    }
    let (access, via) = match write {
        Some(w) if w == method => (Access::Write, format!("objects.{method}")),
        Some(w) => (Access::Write, format!("objects.{method}(...).{w}")),
        None => (Access::Read, format!("objects.{method}")),
    };
    if access == Access::Read && !READS.contains(&sync_name(method)) {
        facts.tables.uses.push(model_use(
            node,
            model.to_owned(),
            access,
            via,
            Confidence::Possible,
            Some(format!("{method} is a custom manager method, taken to be a read")),
        ));
        return;
    }
    facts.tables.uses.push(model_use(
        node,
        model.to_owned(),
        access,
        via,
        Confidence::Certain,
        None,
    ));
}
