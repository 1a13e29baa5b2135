//! Python: the extractor (imports and every recogniser) on one file, then the whole pipeline on a
//! tree holding it, so resolution and the linkers read its facts too.
#![no_main]

use cartograph_core::RepoPath;
use cartograph_extract::{Extractor, Grammar};
use cartograph_fuzz::{MemoryTree, analyse, pick, text};
use libfuzzer_sys::fuzz_target;

/// Where the file sits: recognisers look at file names (Django's `models.py`, `urls.py`), tests
/// and stubs.
const PATHS: &[&str] = &[
    "app/main.py",
    "app/models.py",
    "app/urls.py",
    "app/views.py",
    "app/__init__.py",
    "project/settings.py",
    "tests/test_app.py",
    "stubs/app.pyi",
];

fuzz_target!(|data: &[u8]| {
    let path = *pick(data, PATHS);
    let source = text(data);
    let repo_path = RepoPath::new(path).expect("a fixed valid path");
    let _ = Extractor::new().extract(&repo_path, Grammar::Python, &source);
    let _ = Extractor::imports_only().extract(&repo_path, Grammar::Python, &source);
    let tree = MemoryTree::new([
        (path, data.to_vec()),
        ("app/db.py", b"import sqlite3\nconn = sqlite3.connect('x')\n".to_vec()),
        (
            "app/schemas.py",
            b"from pydantic import BaseModel\nclass Item(BaseModel):\n    id: int\n".to_vec(),
        ),
    ]);
    let _ = analyse(&tree);
});
