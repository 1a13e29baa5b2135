//! Coverage: what an analysis did not see, so that an empty answer is read as "unknown" where it
//! is one rather than as "none".
//!
//! Four parts, all derived from an [`Analysis`] (and so from a snapshot as well as from a tree):
//! the files not analysed, by reason and extension; the languages present that Cartograph does
//! not read; the modules of frontend components in which no HTTP call was recognised and none
//! was refused; and, for each refusal kind present, how many there are and what they leave
//! unknown.

use std::collections::{BTreeMap, BTreeSet};

use cartograph_core::{EdgeKind, Language, NodeKind, RefusalKind, RepoPath};

use crate::Analysis;

/// How many modules a frontend's coverage names as examples.
pub const FRONTEND_EXAMPLES: usize = 5;

/// What an analysis did not see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coverage {
    /// Files and links the walk met.
    pub files_seen: u64,
    /// Source files parsed.
    pub files_analysed: u64,
    /// Files skipped with a refusal, by refusal kind and extension.
    pub skipped: Vec<SkippedFiles>,
    /// Files that are not source files of an analysed language, by extension, most first.
    pub other_files: Vec<OtherFiles>,
    /// Languages with files in the tree that Cartograph does not analyse, most files first.
    pub languages_not_analysed: Vec<LanguageNotAnalysed>,
    /// Components that look like frontends (a `.tsx`, `.jsx`, `.vue` or `.svelte` module, or
    /// an import of a UI framework), with the modules in which no call was recognised.
    pub frontends: Vec<FrontendCoverage>,
    /// Every refusal kind present, in kind order.
    pub refusals: Vec<RefusalCoverage>,
}

/// Files skipped for one reason with one extension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedFiles {
    pub reason: RefusalKind,
    /// Lower case, without the dot; empty for none.
    pub extension: String,
    pub files: u64,
}

/// Files of one extension that are not source files of an analysed language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OtherFiles {
    /// Lower case, without the dot; empty for none.
    pub extension: String,
    pub files: u64,
    /// The language those files are written in, when it is one Cartograph does not analyse.
    pub language: Option<&'static str>,
}

/// A language present but not analysed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LanguageNotAnalysed {
    pub language: &'static str,
    pub files: u64,
    pub extensions: Vec<String>,
}

/// One frontend component's calls coverage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontendCoverage {
    pub component: String,
    /// Its TypeScript and JavaScript modules.
    pub modules: u64,
    /// Modules with at least one recognised HTTP call.
    pub with_calls: u64,
    /// Modules with no recognised call but a call refusal (computed URL, unmatched call).
    pub with_call_refusals: u64,
    /// Modules with neither: whether they call anything is unknown, not "no".
    pub without_calls: u64,
    /// The first [`FRONTEND_EXAMPLES`] of those, in path order.
    pub examples: Vec<RepoPath>,
}

/// The refusals of one kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusalCoverage {
    pub kind: RefusalKind,
    pub refusals: u64,
    /// Distinct files they are in.
    pub files: u64,
    /// What they leave unknown.
    pub affects: &'static str,
}

/// Extensions of languages Cartograph does not analyse, with the language's name.
const LANGUAGES: &[(&str, &str)] = &[
    ("astro", "Astro"),
    ("c", "C"),
    ("cc", "C++"),
    ("clj", "Clojure"),
    ("cljs", "Clojure"),
    ("coffee", "CoffeeScript"),
    ("cpp", "C++"),
    ("cs", "C#"),
    ("cxx", "C++"),
    ("dart", "Dart"),
    ("erl", "Erlang"),
    ("ex", "Elixir"),
    ("exs", "Elixir"),
    ("fs", "F#"),
    ("go", "Go"),
    ("gql", "GraphQL"),
    ("graphql", "GraphQL"),
    ("groovy", "Groovy"),
    ("h", "C"),
    ("hpp", "C++"),
    ("hs", "Haskell"),
    ("java", "Java"),
    ("kt", "Kotlin"),
    ("kts", "Kotlin"),
    ("lua", "Lua"),
    ("php", "PHP"),
    ("pl", "Perl"),
    ("pm", "Perl"),
    ("proto", "Protocol Buffers"),
    ("rb", "Ruby"),
    ("scala", "Scala"),
    ("swift", "Swift"),
    ("zig", "Zig"),
];

/// Packages whose import makes a component a frontend.
const UI_PACKAGES: &[&str] = &[
    "npm:@angular/core",
    "npm:next",
    "npm:nuxt",
    "npm:preact",
    "npm:react",
    "npm:react-dom",
    "npm:solid-js",
    "npm:svelte",
    "npm:vue",
];

/// The language of files with this extension (lower case, no dot), when Cartograph does not
/// analyse it.
pub fn language_not_analysed(extension: &str) -> Option<&'static str> {
    LANGUAGES.binary_search_by(|(e, _)| (*e).cmp(extension)).ok().map(|i| LANGUAGES[i].1)
}

/// What `analysis` did not see.
pub fn coverage(analysis: &Analysis) -> Coverage {
    let stats = &analysis.stats;

    let mut skipped: BTreeMap<(RefusalKind, String), u64> = BTreeMap::new();
    let mut by_kind: BTreeMap<RefusalKind, (u64, BTreeSet<&RepoPath>)> = BTreeMap::new();
    for refusal in &analysis.refusals {
        let entry = by_kind.entry(refusal.kind).or_default();
        entry.0 += 1;
        entry.1.insert(&refusal.location.path);
        if refusal.kind.skips_file() {
            let extension = refusal.location.path.extension().unwrap_or("").to_ascii_lowercase();
            *skipped.entry((refusal.kind, extension)).or_default() += 1;
        }
    }
    let mut skipped: Vec<SkippedFiles> = skipped
        .into_iter()
        .map(|((reason, extension), files)| SkippedFiles { reason, extension, files })
        .collect();
    skipped.sort_by(|a, b| {
        b.files.cmp(&a.files).then_with(|| (a.reason, &a.extension).cmp(&(b.reason, &b.extension)))
    });

    let mut other_files: Vec<OtherFiles> = stats
        .other_files_by_extension
        .iter()
        .map(|(extension, files)| OtherFiles {
            extension: extension.clone(),
            files: *files,
            language: language_not_analysed(extension),
        })
        .collect();
    other_files.sort_by(|a, b| b.files.cmp(&a.files).then_with(|| a.extension.cmp(&b.extension)));

    let mut languages: BTreeMap<&'static str, (u64, Vec<String>)> = BTreeMap::new();
    for other in &other_files {
        if let Some(language) = other.language {
            let entry = languages.entry(language).or_default();
            entry.0 += other.files;
            entry.1.push(other.extension.clone());
        }
    }
    let mut languages_not_analysed: Vec<LanguageNotAnalysed> = languages
        .into_iter()
        .map(|(language, (files, mut extensions))| {
            extensions.sort();
            LanguageNotAnalysed { language, files, extensions }
        })
        .collect();
    languages_not_analysed
        .sort_by(|a, b| b.files.cmp(&a.files).then_with(|| a.language.cmp(b.language)));

    let refusals = by_kind
        .into_iter()
        .map(|(kind, (refusals, files))| RefusalCoverage {
            kind,
            refusals,
            files: files.len() as u64,
            affects: kind.affects(),
        })
        .collect();

    Coverage {
        files_seen: stats.files_seen,
        files_analysed: stats.files_analysed,
        skipped,
        other_files,
        languages_not_analysed,
        frontends: frontends(analysis),
        refusals,
    }
}

/// The calls coverage of each frontend component, in component order.
fn frontends(analysis: &Analysis) -> Vec<FrontendCoverage> {
    // The TypeScript and JavaScript modules of each component.
    let mut components: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut component_of: BTreeMap<&str, &str> = BTreeMap::new();
    for node in &analysis.nodes {
        if node.key.kind() != NodeKind::Module
            || !matches!(node.attrs.language, Some(Language::TypeScript | Language::JavaScript))
        {
            continue;
        }
        let component = node.attrs.component.as_deref().unwrap_or(".");
        components.entry(component).or_default().push(node.key.name());
        component_of.insert(node.key.name(), component);
    }
    let mut ui: BTreeSet<&str> = BTreeSet::new();
    for (component, modules) in &components {
        if modules
            .iter()
            .any(|m| [".tsx", ".jsx", ".vue", ".svelte"].iter().any(|e| m.ends_with(e)))
        {
            ui.insert(component);
        }
    }
    let mut calling: BTreeSet<&str> = BTreeSet::new();
    for edge in &analysis.edges {
        match edge.kind {
            EdgeKind::Imports
                if edge.to.kind() == NodeKind::Package && UI_PACKAGES.contains(&edge.to.name()) =>
            {
                if let Some(component) = component_of.get(edge.from.name()) {
                    ui.insert(component);
                }
            }
            EdgeKind::Calls => {
                calling.insert(edge.location.path.as_str());
            }
            _ => {}
        }
    }
    let refused: BTreeSet<&str> = analysis
        .refusals
        .iter()
        .filter(|r| matches!(r.kind, RefusalKind::ComputedUrl | RefusalKind::UnmatchedCall))
        .map(|r| r.location.path.as_str())
        .collect();
    components
        .into_iter()
        .filter(|(component, _)| ui.contains(component))
        .map(|(component, mut modules)| {
            modules.sort_unstable();
            let with_calls = modules.iter().filter(|m| calling.contains(*m)).count() as u64;
            let with_call_refusals =
                modules.iter().filter(|m| !calling.contains(*m) && refused.contains(*m)).count()
                    as u64;
            let without: Vec<&&str> =
                modules.iter().filter(|m| !calling.contains(*m) && !refused.contains(*m)).collect();
            FrontendCoverage {
                component: component.to_owned(),
                modules: modules.len() as u64,
                with_calls,
                with_call_refusals,
                without_calls: without.len() as u64,
                examples: without
                    .iter()
                    .take(FRONTEND_EXAMPLES)
                    .filter_map(|m| RepoPath::new(m).ok())
                    .collect(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_language_table_is_sorted_for_its_search() {
        assert!(LANGUAGES.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(language_not_analysed("go"), Some("Go"));
        assert_eq!(language_not_analysed("vue"), None, "Vue components are analysed");
        assert_eq!(language_not_analysed("png"), None);
    }
}
