//! The persistent fact cache: a warm run reads every file's facts from the directory and gives
//! the same analysis; a change, a damaged entry or another layout is a miss, never an error;
//! concurrent runs sharing the directory do not corrupt it; the size bound evicts the least
//! recently used entries.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use cartograph_core::EdgeKind;
use cartograph_pipeline::cache::DEFAULT_MAX_BYTES;
use cartograph_pipeline::{
    Analysis, AnalysisOptions, CacheStats, DirectorySource, FactCache, analyse_source,
};

const TREE: &[(&str, &str)] = &[
    (
        "app/main.py",
        "import os\nfrom fastapi import FastAPI\nfrom app import items\n\napp = FastAPI()\napp.include_router(items.router, prefix=\"/items\")\nDB = os.environ[\"DATABASE_URL\"]\n",
    ),
    (
        "app/items.py",
        "from fastapi import APIRouter\nimport requests\n\nrouter = APIRouter()\n\n@router.get(\"/{item_id}\")\ndef read(item_id: int):\n    return requests.get(\"https://api.example.com/v1/things\").json()\n",
    ),
    ("app/__init__.py", ""),
    ("app/broken.py", "def broken(:\n    pass\nimport importlib\nimportlib.import_module(name)\n"),
    (
        "web/src/api.ts",
        "import axios from \"axios\";\nexport const api = axios.create({ baseURL: \"/api\" });\nexport function load(id: string) { return api.get(`/items/${id}`); }\n",
    ),
    (
        "web/src/server.ts",
        "import express from \"express\";\nimport { load } from \"./api\";\nconst app = express();\napp.get(\"/health\", (req, res) => res.send(load(\"1\")));\nconst key = process.env.API_KEY;\n",
    ),
    (
        "web/package.json",
        "{\"name\": \"web\", \"dependencies\": {\"axios\": \"1\", \"express\": \"4\"}}\n",
    ),
];

/// The number of source files in [`TREE`] (the manifest is not extracted).
const SOURCES: u64 = 6;

fn write_tree(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let full = root.join(path);
        std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
        std::fs::write(&full, text).expect("write");
    }
}

fn analyse(root: &Path, cache: Option<&FactCache>) -> Analysis {
    analyse_source(&DirectorySource::new(root), &AnalysisOptions::default(), cache)
        .expect("analysis")
}

/// Analyses `root` with a fresh cache on `dir`, finishes the run and returns what it did.
fn run(root: &Path, dir: &Path, max_bytes: u64) -> (Analysis, CacheStats) {
    let cache = FactCache::with_dir(dir, max_bytes).expect("cache");
    let analysis = analyse(root, Some(&cache));
    let stats = cache.finish();
    (analysis, stats)
}

fn assert_same(a: &Analysis, b: &Analysis) {
    assert_eq!(a.nodes, b.nodes);
    assert_eq!(a.edges, b.edges);
    assert_eq!(a.refusals, b.refusals);
    assert_eq!(a.stats, b.stats);
}

/// Every file under the cache directory, entries and anything else.
fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(next) = stack.pop() {
        for entry in std::fs::read_dir(&next).expect("read_dir").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The entries of files' facts (not of whole trees) under the cache directory.
fn fact_entries(dir: &Path) -> Vec<PathBuf> {
    files_in(dir).into_iter().filter(|f| f.extension().is_some_and(|e| e == "facts")).collect()
}

/// The entries of whole trees' analyses under the cache directory.
fn tree_entries(dir: &Path) -> Vec<PathBuf> {
    files_in(dir).into_iter().filter(|f| f.extension().is_some_and(|e| e == "analysis")).collect()
}

fn size_of(files: &[PathBuf]) -> u64 {
    files.iter().map(|f| std::fs::metadata(f).map_or(0, |m| m.len())).sum()
}

fn set_age(files: &[PathBuf], age: Duration) {
    let when = SystemTime::now() - age;
    for file in files {
        std::fs::File::options()
            .write(true)
            .open(file)
            .and_then(|f| f.set_modified(when))
            .expect("set mtime");
    }
}

#[test]
fn a_cold_run_fills_the_directory_and_a_warm_run_extracts_nothing() {
    let tree = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    write_tree(tree.path(), TREE);
    let uncached = analyse(tree.path(), None);
    assert!(!uncached.edges.is_empty() && !uncached.refusals.is_empty());

    let (cold, stats) = run(tree.path(), dir.path(), DEFAULT_MAX_BYTES);
    assert_same(&cold, &uncached);
    assert_eq!((stats.hits, stats.misses, stats.writes), (0, SOURCES, SOURCES));
    assert_eq!((stats.trees_hit, stats.trees_written), (0, 1));
    let entries = files_in(dir.path());
    assert_eq!(fact_entries(dir.path()).len() as u64, SOURCES);
    assert_eq!(tree_entries(dir.path()).len(), 1);
    assert_eq!(entries.len() as u64, SOURCES + 1);
    assert!(entries.iter().all(|e| e.strip_prefix(dir.path()).unwrap().starts_with("v1")));

    let (warm, stats) = run(tree.path(), dir.path(), DEFAULT_MAX_BYTES);
    assert_same(&warm, &uncached);
    assert_eq!(stats.misses, 0);
    assert_eq!((stats.hits, stats.disk_hits, stats.writes), (SOURCES, SOURCES, 0));
    assert_eq!((stats.trees_hit, stats.trees_written), (1, 0));

    // An imports-only run extracts other facts: nothing it needs is in the directory yet.
    let cache = FactCache::with_dir(dir.path(), DEFAULT_MAX_BYTES).unwrap();
    let options = AnalysisOptions { imports_only: true, ..AnalysisOptions::default() };
    analyse_source(&DirectorySource::new(tree.path()), &options, Some(&cache)).unwrap();
    assert_eq!(cache.finish().misses, SOURCES);
}

#[test]
fn a_changed_file_misses_exactly_once() {
    let tree = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    write_tree(tree.path(), TREE);
    run(tree.path(), dir.path(), DEFAULT_MAX_BYTES);

    write_tree(
        tree.path(),
        &[(
            "app/items.py",
            "from fastapi import APIRouter\nrouter = APIRouter()\n\n@router.post(\"/\")\ndef create():\n    return {}\n",
        )],
    );
    let uncached = analyse(tree.path(), None);
    let (changed, stats) = run(tree.path(), dir.path(), DEFAULT_MAX_BYTES);
    assert_same(&changed, &uncached);
    assert_eq!((stats.misses, stats.hits, stats.writes), (1, SOURCES - 1, 1));

    let (_, stats) = run(tree.path(), dir.path(), DEFAULT_MAX_BYTES);
    assert_eq!(stats.misses, 0);
}

#[test]
fn a_damaged_entry_is_a_miss_and_is_written_again() {
    let tree = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    write_tree(tree.path(), TREE);
    let uncached = analyse(tree.path(), None);
    run(tree.path(), dir.path(), DEFAULT_MAX_BYTES);

    let entries = fact_entries(dir.path());
    let truncated = std::fs::read(&entries[0]).unwrap();
    std::fs::write(&entries[0], &truncated[..truncated.len() / 2]).unwrap();
    std::fs::write(&entries[1], b"not an entry at all").unwrap();
    let mut flipped = std::fs::read(&entries[2]).unwrap();
    let last = flipped.len() - 1;
    flipped[last] ^= 0x55;
    std::fs::write(&entries[2], &flipped).unwrap();
    std::fs::write(&entries[3], b"").unwrap();
    // A tree whose whole analysis is kept reads no file's facts: with it, the damage goes
    // unnoticed (and harms nothing).
    let (kept, stats) = run(tree.path(), dir.path(), DEFAULT_MAX_BYTES);
    assert_same(&kept, &uncached);
    assert_eq!((stats.trees_hit, stats.misses, stats.corrupt), (1, 0, 0));
    // Without it, the facts are read: each damaged entry is a miss, extracted and written again.
    for entry in tree_entries(dir.path()) {
        std::fs::remove_file(entry).unwrap();
    }

    let (repaired, stats) = run(tree.path(), dir.path(), DEFAULT_MAX_BYTES);
    assert_same(&repaired, &uncached);
    assert_eq!((stats.misses, stats.corrupt, stats.writes), (4, 4, 4));
    assert_eq!((stats.trees_hit, stats.trees_written), (0, 1));

    let (warm, stats) = run(tree.path(), dir.path(), DEFAULT_MAX_BYTES);
    assert_same(&warm, &uncached);
    assert_eq!((stats.misses, stats.corrupt), (0, 0));
}

#[test]
fn a_damaged_tree_entry_is_analysed_again() {
    let tree = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    write_tree(tree.path(), TREE);
    let uncached = analyse(tree.path(), None);
    run(tree.path(), dir.path(), DEFAULT_MAX_BYTES);
    let [entry] = tree_entries(dir.path()).try_into().unwrap();
    let whole = std::fs::read(&entry).unwrap();
    let mut damaged: Vec<Vec<u8>> = Vec::new();
    for at in [whole.len() / 2, whole.len() - 1, 100] {
        let mut flipped = whole.clone();
        flipped[at] ^= 0x55;
        damaged.push(flipped);
    }
    damaged.push(whole[..whole.len() - 3].to_vec());
    damaged.push(whole[..80].to_vec());
    let mut longer = whole.clone();
    longer.extend_from_slice(b"trailing");
    damaged.push(longer);
    for (i, bytes) in damaged.iter().enumerate() {
        std::fs::write(&entry, bytes).unwrap();
        let (analysis, stats) = run(tree.path(), dir.path(), DEFAULT_MAX_BYTES);
        assert_same(&analysis, &uncached);
        let counts = (stats.trees_hit, stats.corrupt, stats.trees_written);
        assert_eq!(counts, (0, 1, 1), "damage {i}");
        assert_eq!(std::fs::read(&entry).unwrap(), whole, "written again whole ({i})");
    }
    let (kept, stats) = run(tree.path(), dir.path(), DEFAULT_MAX_BYTES);
    assert_same(&kept, &uncached);
    assert_eq!((stats.trees_hit, stats.corrupt), (1, 0));
}

#[test]
fn the_bound_evicts_the_least_recently_used_entries() {
    let old_tree = tempfile::tempdir().unwrap();
    let new_tree = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    write_tree(old_tree.path(), TREE);
    write_tree(new_tree.path(), TREE);
    // The same files with other content: other keys.
    for (path, text) in TREE {
        std::fs::write(new_tree.path().join(path), format!("{text}\n# v2\n")).unwrap();
    }
    std::fs::write(new_tree.path().join("web/package.json"), TREE[6].1).unwrap();

    run(old_tree.path(), dir.path(), DEFAULT_MAX_BYTES);
    let old_entries = files_in(dir.path());
    set_age(&old_entries, Duration::from_secs(2 * 86_400));

    // A warm read refreshes what it reads.
    run(old_tree.path(), dir.path(), DEFAULT_MAX_BYTES);
    let day = SystemTime::now() - Duration::from_secs(86_400);
    for entry in &old_entries {
        assert!(std::fs::metadata(entry).unwrap().modified().unwrap() > day);
    }
    set_age(&old_entries, Duration::from_secs(2 * 86_400));

    // Room for a little more than one tree's entries: the old tree's go.
    let bound = size_of(&old_entries) * 3 / 2;
    let (_, stats) = run(new_tree.path(), dir.path(), bound);
    assert_eq!(stats.writes, SOURCES);
    assert!(stats.evicted >= SOURCES / 2, "{stats:?}");
    assert!(size_of(&files_in(dir.path())) <= bound);

    let (_, stats) = run(new_tree.path(), dir.path(), bound);
    assert_eq!(stats.misses, 0, "the recently used entries stay");
    let (_, stats) = run(old_tree.path(), dir.path(), bound);
    assert!(stats.misses >= SOURCES / 2, "{stats:?}");
}

#[test]
fn concurrent_runs_share_a_directory_safely() {
    let tree = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    write_tree(tree.path(), TREE);
    let uncached = analyse(tree.path(), None);

    for _ in 0..3 {
        std::thread::scope(|scope| {
            let runs: Vec<_> = (0..3)
                .map(|_| scope.spawn(|| run(tree.path(), dir.path(), DEFAULT_MAX_BYTES).0))
                .collect();
            for handle in runs {
                assert_same(&handle.join().expect("run"), &uncached);
            }
        });
        // Start the next round cold again, so the runs write at the same time.
        for entry in files_in(dir.path()) {
            std::fs::remove_file(entry).unwrap();
        }
    }
    std::thread::scope(|scope| {
        for _ in 0..3 {
            scope.spawn(|| run(tree.path(), dir.path(), DEFAULT_MAX_BYTES));
        }
    });
    let (warm, stats) = run(tree.path(), dir.path(), DEFAULT_MAX_BYTES);
    assert_same(&warm, &uncached);
    assert_eq!((stats.misses, stats.corrupt), (0, 0));
    let names: Vec<String> = files_in(dir.path())
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len() as u64, SOURCES + 1, "no temporary file is left: {names:?}");
}

#[test]
fn entries_of_another_layout_are_not_read() {
    let tree = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    write_tree(tree.path(), TREE);
    run(tree.path(), dir.path(), DEFAULT_MAX_BYTES);
    // An entry whose header names another format, in this layout's place, is a miss.
    let entries = fact_entries(dir.path());
    let mut bytes = std::fs::read(&entries[0]).unwrap();
    bytes[7] = b'9';
    std::fs::write(&entries[0], &bytes).unwrap();
    for entry in tree_entries(dir.path()) {
        std::fs::remove_file(entry).unwrap();
    }
    let (_, stats) = run(tree.path(), dir.path(), DEFAULT_MAX_BYTES);
    assert_eq!((stats.misses, stats.corrupt), (1, 1));
}

#[test]
fn an_unusable_directory_is_a_clear_error_without_its_path() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain-file");
    std::fs::write(&file, "x").unwrap();
    let error = FactCache::with_dir(&file, DEFAULT_MAX_BYTES).unwrap_err().to_string();
    assert!(error.contains("cache directory"), "{error}");
    assert!(!error.contains(dir.path().to_str().unwrap()), "{error}");
    assert!(!error.contains('/'), "{error}");
}

#[test]
fn a_bounded_memory_cache_sheds_entries_and_still_gives_the_same_analysis() {
    let tree = tempfile::tempdir().expect("tree");
    write_tree(tree.path(), TREE);
    let unbounded = analyse(tree.path(), None);
    let cache = FactCache::in_memory_bounded(4);
    let first = analyse(tree.path(), Some(&cache));
    assert!(cache.len() <= 4, "held {}", cache.len());
    assert!(cache.stats().evicted > 0);
    let second = analyse(tree.path(), Some(&cache));
    assert!(cache.len() <= 4, "held {}", cache.len());
    assert_same(&unbounded, &first);
    assert_same(&unbounded, &second);
}

#[test]
fn a_tree_seen_before_is_read_whole_and_anything_it_read_changing_is_a_miss() {
    let tree = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    write_tree(tree.path(), TREE);
    let (_, stats) = run(tree.path(), dir.path(), DEFAULT_MAX_BYTES);
    assert_eq!(stats.trees_written, 1);
    let (warm, stats) = run(tree.path(), dir.path(), DEFAULT_MAX_BYTES);
    assert_same(&warm, &analyse(tree.path(), None));
    assert_eq!((stats.trees_hit, stats.trees_written), (1, 0));
    // A tree analysed alone numbers no versions, from the cache or not.
    assert!(warm.file_versions.is_empty());

    // Each of these changes what the analysis reads, though no source file changes: each is a
    // miss, gives what an uncached run gives, and is kept for the next run.
    let changes: [(&str, &str); 4] = [
        // A configuration file the resolvers read.
        ("web/package.json", "{\"name\": \"web\", \"dependencies\": {\"axios\": \"1\"}}\n"),
        ("web/tsconfig.json", "{\"compilerOptions\": {\"baseUrl\": \"src\"}}\n"),
        // A file that is not a source but that imports may resolve to.
        ("app/data.json", "{}\n"),
        // A schema file.
        ("db/schema.sql", "CREATE TABLE things (id int);\n"),
    ];
    for change in changes {
        write_tree(tree.path(), &[change]);
        let uncached = analyse(tree.path(), None);
        let (changed, stats) = run(tree.path(), dir.path(), DEFAULT_MAX_BYTES);
        assert_same(&changed, &uncached);
        assert_eq!((stats.trees_hit, stats.trees_written), (0, 1), "{}", change.0);
        assert_eq!(stats.misses, 0, "{}: no source file changed", change.0);
        let (_, stats) = run(tree.path(), dir.path(), DEFAULT_MAX_BYTES);
        assert_eq!(stats.trees_hit, 1, "{}", change.0);
    }

    // Other options are another analysis.
    let cache = FactCache::with_dir(dir.path(), DEFAULT_MAX_BYTES).unwrap();
    let options = AnalysisOptions { include_builtins: true, ..AnalysisOptions::default() };
    let source = DirectorySource::new(tree.path());
    let with_builtins = analyse_source(&source, &options, Some(&cache)).unwrap();
    assert_eq!(cache.finish().trees_hit, 0);
    assert_same(&with_builtins, &analyse_source(&source, &options, None).unwrap());
    // The thread count is not: it changes no output.
    let cache = FactCache::with_dir(dir.path(), DEFAULT_MAX_BYTES).unwrap();
    let options = AnalysisOptions { threads: Some(1), ..AnalysisOptions::default() };
    analyse_source(&source, &options, Some(&cache)).unwrap();
    assert_eq!(cache.finish().trees_hit, 1);
}

#[test]
fn a_damaged_tree_entry_is_analysed_again_and_rewritten() {
    let tree = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    write_tree(tree.path(), TREE);
    let uncached = analyse(tree.path(), None);
    run(tree.path(), dir.path(), DEFAULT_MAX_BYTES);
    let entry = tree_entries(dir.path()).pop().expect("the tree's entry");
    let mut bytes = std::fs::read(&entry).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x55;
    std::fs::write(&entry, &bytes).unwrap();

    let (repaired, stats) = run(tree.path(), dir.path(), DEFAULT_MAX_BYTES);
    assert_same(&repaired, &uncached);
    assert_eq!((stats.trees_hit, stats.corrupt, stats.trees_written), (0, 1, 1));
    let (warm, stats) = run(tree.path(), dir.path(), DEFAULT_MAX_BYTES);
    assert_same(&warm, &uncached);
    assert_eq!((stats.trees_hit, stats.corrupt), (1, 0));
}

#[test]
fn without_a_given_bound_the_directory_keeps_what_a_run_used() {
    let tree = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    write_tree(tree.path(), TREE);
    // A fixed bound of one byte: every entry the run wrote goes again.
    let strict = FactCache::with_dir(dir.path(), 1).unwrap();
    analyse(tree.path(), Some(&strict));
    let stats = strict.finish();
    assert_eq!(stats.evicted, SOURCES + 1, "{stats:?}");
    assert!(files_in(dir.path()).is_empty());
    // The same floor, fitting: the bound is twice what the run used, so the run's entries stay
    // and the next run parses nothing.
    let fitting = FactCache::with_dir_fitting(dir.path(), 1).unwrap();
    analyse(tree.path(), Some(&fitting));
    assert_eq!(fitting.finish().evicted, 0);
    assert_eq!(fact_entries(dir.path()).len() as u64, SOURCES);
    let next = FactCache::with_dir_fitting(dir.path(), 1).unwrap();
    analyse(tree.path(), Some(&next));
    let stats = next.finish();
    assert_eq!((stats.misses, stats.trees_hit), (0, 1));
}

/// Serves `path` as `later` from its second read on: a file edited while a run reads the tree.
struct EditedDuringTheRun {
    tree: DirectorySource,
    path: &'static str,
    later: &'static str,
    reads: std::sync::atomic::AtomicUsize,
}

impl cartograph_pipeline::FileSource for EditedDuringTheRun {
    fn discover(
        &self,
        options: &cartograph_pipeline::DiscoveryOptions,
    ) -> Result<cartograph_pipeline::Inventory, cartograph_pipeline::discover::DiscoverError> {
        self.tree.discover(options)
    }

    fn read(&self, path: &cartograph_core::RepoPath, size: u64) -> std::io::Result<Vec<u8>> {
        if path.as_str() == self.path
            && self.reads.fetch_add(1, std::sync::atomic::Ordering::Relaxed) > 0
        {
            return Ok(self.later.as_bytes().to_vec());
        }
        self.tree.read(path, size)
    }
}

#[test]
fn a_file_edited_while_its_facts_are_read_again_is_not_kept_under_the_old_key() {
    let tree = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    write_tree(tree.path(), TREE);
    run(tree.path(), dir.path(), DEFAULT_MAX_BYTES);
    // The tree must be analysed (its entry is gone) and every file's facts read again (their
    // entries are damaged): app/items.py is then read a second time, and by then it changed.
    for entry in tree_entries(dir.path()) {
        std::fs::remove_file(entry).unwrap();
    }
    for entry in fact_entries(dir.path()) {
        std::fs::write(entry, b"damaged").unwrap();
    }
    let later = "from fastapi import APIRouter\nrouter = APIRouter()\n\n@router.delete(\"/\")\ndef drop():\n    return {}\n";
    let source = EditedDuringTheRun {
        tree: DirectorySource::new(tree.path()),
        path: "app/items.py",
        later,
        reads: std::sync::atomic::AtomicUsize::new(0),
    };
    let cache = FactCache::with_dir(dir.path(), DEFAULT_MAX_BYTES).unwrap();
    let analysis = analyse_source(&source, &AnalysisOptions::default(), Some(&cache)).unwrap();
    let stats = cache.finish();
    // What was analysed is the file as it is now, and that analysis is not kept under the key of
    // the tree as it was.
    write_tree(tree.path(), &[("app/items.py", later)]);
    assert_same(&analysis, &analyse(tree.path(), None));
    assert_eq!(stats.trees_written, 0, "{stats:?}");
    // The facts were kept under the key of what was read: the tree as it is now parses nothing.
    let (_, stats) = run(tree.path(), dir.path(), DEFAULT_MAX_BYTES);
    assert_eq!((stats.misses, stats.trees_written), (0, 1), "{stats:?}");
}

#[test]
fn facts_held_in_a_spill_file_give_the_same_analyses() {
    let tree = tempfile::tempdir().unwrap();
    write_tree(tree.path(), TREE);
    let head = tempfile::tempdir().unwrap();
    write_tree(head.path(), TREE);
    std::fs::write(
        head.path().join("app/items.py"),
        "from fastapi import APIRouter\nimport httpx\n\nrouter = APIRouter()\n\n@router.post(\"/{item_id}\")\ndef write(item_id: int):\n    return httpx.get(\"https://api.example.com/v2/things\").json()\n",
    )
    .unwrap();
    // A limit of 0 moves every file's facts to the spill file as they are held.
    let spilled = AnalysisOptions { spill_limit: Some(0), ..AnalysisOptions::default() };
    let source = DirectorySource::new(tree.path());
    let in_memory = analyse(tree.path(), None);
    assert_same(&analyse_source(&source, &spilled, None).unwrap(), &in_memory);

    // Both trees of a diff, sharing their unchanged files' facts.
    let head_source = DirectorySource::new(head.path());
    let sources: [&dyn cartograph_pipeline::FileSource; 2] = [&source, &head_source];
    let pair =
        cartograph_pipeline::analyse_sources(&sources, &AnalysisOptions::default(), None).unwrap();
    let spilled_pair = cartograph_pipeline::analyse_sources(&sources, &spilled, None).unwrap();
    for (a, b) in spilled_pair.iter().zip(&pair) {
        assert_same(a, b);
        assert_eq!(a.file_versions, b.file_versions);
    }
    // The base, put aside encoded while the head was analysed, is the analysis of the tree.
    assert_same(&pair[0], &in_memory);
    assert_same(&spilled_pair[0], &in_memory);
    assert!(!spilled_pair[0].file_versions.is_empty());

    // Spilled facts written to a cache read back the same, spilled or not.
    let dir = tempfile::tempdir().unwrap();
    let cache = FactCache::with_dir(dir.path(), DEFAULT_MAX_BYTES).unwrap();
    assert_same(&analyse_source(&source, &spilled, Some(&cache)).unwrap(), &in_memory);
    assert_eq!(cache.finish().misses, SOURCES);
    let cache = FactCache::with_dir(dir.path(), DEFAULT_MAX_BYTES).unwrap();
    assert_same(&analyse_source(&head_source, &spilled, Some(&cache)).unwrap(), &pair[1]);
    assert_eq!(cache.finish().misses, 1, "only the changed file is extracted");

    // A diff whose base the cache kept whole: the base waits in the spill while the head is
    // analysed, and both come back as analysed without the cache.
    let dir = tempfile::tempdir().unwrap();
    let cache = FactCache::with_dir(dir.path(), DEFAULT_MAX_BYTES).unwrap();
    analyse_source(&source, &spilled, Some(&cache)).unwrap();
    cache.finish();
    let cache = FactCache::with_dir(dir.path(), DEFAULT_MAX_BYTES).unwrap();
    let warm = cartograph_pipeline::analyse_sources(&sources, &spilled, Some(&cache)).unwrap();
    assert_eq!(cache.finish().trees_hit, 1, "the base was kept whole");
    for (a, b) in warm.iter().zip(&pair) {
        assert_same(a, b);
        assert_eq!(a.file_versions, b.file_versions);
    }

    // Read back from the spill or the cache, an import's source key and location share their
    // path's text, as in a tree analysed in memory: a copy per value would double a large
    // tree's memory.
    let shares_paths = |analysis: &Analysis| {
        let imports: Vec<_> =
            analysis.edges.iter().filter(|e| e.kind == EdgeKind::Imports).collect();
        assert!(!imports.is_empty());
        imports.iter().all(|e| e.from.name().as_ptr() == e.location.path.as_str().as_ptr())
    };
    assert!(shares_paths(&in_memory));
    let snapshot = analyse_source(&source, &spilled, None).unwrap();
    assert!(shares_paths(&snapshot), "a tree whose edges waited in the spill");
    assert!(shares_paths(&spilled_pair[0]), "a base put aside");
    assert!(shares_paths(&warm[0]), "a base the cache kept");
}
