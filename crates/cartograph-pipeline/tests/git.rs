//! A git revision as a tree: temporary repositories built with the `git` command line, analysed by
//! revision with no checkout, compared with directory walks of the same files, plus the shallow-clone
//! and unknown-revision errors and the reading of tree arguments.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use cartograph_core::RefusalKind;
use cartograph_pipeline::{
    Analysis, AnalysisOptions, DirectorySource, DiscoveryOptions, FileSource, GitRevisionSource,
    Inventory, SourceError, TreeSpec, analyse_source, parse_tree_arg,
};

/// Runs `git` in `dir` with no machine or user configuration; returns its trimmed stdout.
fn git(home: &Path, dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args(["-c", "user.name=Test", "-c", "user.email=test@example.invalid"])
        .args(["-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"])
        .args(["-c", "tag.gpgsign=false", "-c", "core.autocrlf=false"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", home.join("gitconfig"))
        .env("HOME", home)
        .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_OBJECT_DIRECTORY")
        .env_remove("GIT_CEILING_DIRECTORIES")
        .output()
        .expect("git runs");
    assert!(
        output.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

fn write(root: &Path, path: &str, content: &str) {
    let full = root.join(path);
    std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
    std::fs::write(full, content).expect("write");
}

/// The first commit's files.
const FIRST: &[(&str, &str)] = &[
    ("app/__init__.py", ""),
    ("app/main.py", "import os\nfrom app import util\n\nDB = os.environ[\"DATABASE_URL\"]\n"),
    ("app/util.py", "def helper():\n    return 1\n"),
    ("web/src/index.ts", "import { x } from \"./lib\";\nexport const y = x;\n"),
    ("web/src/lib.ts", "export const x = 1;\n"),
    ("web/vendor.min.js", "var a=1;\n"),
    ("web/node_modules/pkg/index.js", "module.exports = 1;\n"),
    ("schema.prisma", "model User {\n  id Int @id\n}\n"),
    (".gitignore", "*.log\n"),
];

/// The second commit changes `app/main.py` and adds a module and a symbolic link.
const SECOND: &[(&str, &str)] = &[
    (
        "app/main.py",
        "import os\nfrom app import util, extra\n\nDB = os.environ[\"DATABASE_URL\"]\nKEY = os.getenv(\"API_KEY\")\n",
    ),
    ("app/extra.py", "import json\n"),
];

struct Repo {
    /// Holds the home folder and every repository; removed on drop.
    temp: tempfile::TempDir,
    work: PathBuf,
}

impl Repo {
    fn home(&self) -> &Path {
        self.temp.path()
    }

    fn git(&self, args: &[&str]) -> String {
        git(self.home(), &self.work, args)
    }

    /// A repository with the two commits; the first tagged `v1` (lightweight), the second `v2`
    /// (annotated).
    fn two_commits() -> Repo {
        let temp = tempfile::tempdir().expect("tempdir");
        let work = temp.path().join("repo");
        std::fs::create_dir_all(&work).expect("mkdir");
        let repo = Repo { temp, work };
        repo.git(&["init", "-q"]);
        for (path, content) in FIRST {
            write(&repo.work, path, content);
        }
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "-m", "first"]);
        repo.git(&["tag", "v1"]);
        for (path, content) in SECOND {
            write(&repo.work, path, content);
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink("app/main.py", repo.work.join("link.py")).expect("symlink");
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "-m", "second"]);
        repo.git(&["tag", "-a", "v2", "-m", "second release"]);
        repo
    }
}

fn analyse(source: &dyn FileSource) -> Analysis {
    analyse_source(source, &AnalysisOptions::default(), None).expect("analysis")
}

fn node_ids(analysis: &Analysis) -> Vec<String> {
    analysis.nodes.iter().map(|n| n.key.id()).collect()
}

/// Nodes, edges and refusals, the facts two analyses of the same files must share.
fn facts(analysis: &Analysis) -> (String, String, String) {
    (
        format!("{:#?}", analysis.nodes),
        format!("{:#?}", analysis.edges),
        format!("{:#?}", analysis.refusals),
    )
}

/// Every file of the working tree (outside `.git`) with its content and modification time.
fn tree_state(root: &Path) -> BTreeMap<PathBuf, (Vec<u8>, std::time::SystemTime)> {
    let mut state = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read_dir") {
            let entry = entry.expect("entry");
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path).expect("metadata");
            if meta.is_dir() {
                if entry.file_name() != ".git" {
                    stack.push(path);
                }
                continue;
            }
            let content = if meta.is_symlink() {
                std::fs::read_link(&path).expect("link").into_os_string().into_encoded_bytes()
            } else {
                std::fs::read(&path).expect("read")
            };
            state.insert(path, (content, meta.modified().expect("mtime")));
        }
    }
    let index = root.join(".git/index");
    let meta = std::fs::metadata(&index).expect("index");
    let content = std::fs::read(&index).expect("index");
    state.insert(index, (content, meta.modified().expect("mtime")));
    state
}

/// Writes `files` to a fresh folder under `parent`.
fn plain_dir(parent: &Path, name: &str, files: &[&[(&str, &str)]]) -> PathBuf {
    let root = parent.join(name);
    for set in files {
        for (path, content) in *set {
            write(&root, path, content);
        }
    }
    root
}

fn error_text(result: Result<GitRevisionSource, SourceError>) -> String {
    match result {
        Ok(source) => panic!("expected an error, opened {source:?}"),
        Err(error) => error.to_string(),
    }
}

#[test]
fn two_revisions_give_their_own_facts_equal_to_directory_walks() {
    let repo = Repo::two_commits();
    // `git status` may rewrite the index (refreshing stat data): once before taking the state.
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    let before = tree_state(&repo.work);

    let old = GitRevisionSource::open(&repo.work, "HEAD~1").expect("HEAD~1");
    let new = GitRevisionSource::open(&repo.work, "HEAD").expect("HEAD");
    assert_eq!(old.revision(), "HEAD~1");
    assert_eq!(old.commit_hex(), repo.git(&["rev-parse", "HEAD~1"]));
    assert_eq!(new.commit_hex(), repo.git(&["rev-parse", "HEAD"]));
    let old_analysis = analyse(&old);
    let new_analysis = analyse(&new);

    let old_ids = node_ids(&old_analysis);
    let new_ids = node_ids(&new_analysis);
    assert!(old_ids.contains(&"env_var:DATABASE_URL".to_owned()), "{old_ids:?}");
    assert!(!old_ids.contains(&"env_var:API_KEY".to_owned()), "{old_ids:?}");
    assert!(!old_ids.contains(&"module:app/extra.py".to_owned()), "{old_ids:?}");
    assert!(new_ids.contains(&"env_var:API_KEY".to_owned()), "{new_ids:?}");
    assert!(new_ids.contains(&"module:app/extra.py".to_owned()), "{new_ids:?}");

    // The same files written to plain folders analyse to the same facts.
    let old_dir = plain_dir(repo.home(), "old", &[FIRST]);
    let new_dir = plain_dir(repo.home(), "new", &[FIRST, SECOND]);
    #[cfg(unix)]
    std::os::unix::fs::symlink("app/main.py", new_dir.join("link.py")).expect("symlink");
    assert_eq!(facts(&old_analysis), facts(&analyse(&DirectorySource::new(&old_dir))));
    let new_dir_analysis = analyse(&DirectorySource::new(&new_dir));
    assert_eq!(facts(&new_analysis), facts(&new_dir_analysis));
    assert_eq!(new_analysis.stats, new_dir_analysis.stats);

    // Refusals a directory walk makes are made alike: the minified name, the symbolic link, and
    // the excluded folder is listed.
    let refused: Vec<(&str, RefusalKind)> =
        new_analysis.refusals.iter().map(|r| (r.location.path.as_str(), r.kind)).collect();
    assert!(refused.contains(&("web/vendor.min.js", RefusalKind::MinifiedBundle)), "{refused:?}");
    #[cfg(unix)]
    assert!(refused.contains(&("link.py", RefusalKind::Symlink)), "{refused:?}");
    let excluded: Vec<&str> = new_analysis.stats.excluded_dirs.iter().map(|p| p.as_str()).collect();
    assert_eq!(excluded, ["web/node_modules"]);

    // Nothing in the working tree or the index changed.
    assert_eq!(tree_state(&repo.work), before);
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
}

/// Compares what discovery lists, field by field; `.git` is pruned only by the directory walk.
fn assert_same_inventory(git: &Inventory, dir: &Inventory) {
    let sources = |i: &Inventory| {
        i.sources
            .iter()
            .map(|s| format!("{} {:?} {}", s.path, s.grammar, s.size))
            .collect::<Vec<_>>()
    };
    assert_eq!(sources(git), sources(dir));
    assert_eq!(git.prisma_schemas, dir.prisma_schemas);
    assert_eq!(git.index.files().collect::<Vec<_>>(), dir.index.files().collect::<Vec<_>>());
    assert_eq!(git.refusals, dir.refusals);
    assert_eq!(git.entries_seen, dir.entries_seen);
    let excluded: Vec<_> = dir.excluded_dirs.iter().filter(|p| p.as_str() != ".git").collect();
    assert_eq!(git.excluded_dirs.iter().collect::<Vec<_>>(), excluded);
}

#[test]
fn discovery_of_a_revision_matches_a_walk_of_its_checkout() {
    let repo = Repo::two_commits();
    // A name that is not UTF-8, a file over the cap, a folder whose name sorts around a file's.
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let odd = repo.work.join(std::ffi::OsStr::from_bytes(b"caf\xe9"));
        std::fs::create_dir_all(&odd).expect("mkdir");
        std::fs::write(odd.join("x.py"), "import os\n").expect("write");
    }
    write(&repo.work, "big.py", &"x = 1\n".repeat(100));
    write(&repo.work, "a.b.py", "");
    write(&repo.work, "a/b.py", "");
    write(&repo.work, "dist/out.js", "");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "third"]);

    let options = DiscoveryOptions { max_file_size: 200, ..DiscoveryOptions::default() };
    let source = GitRevisionSource::open(&repo.work, "main").expect("main");
    let from_git = source.discover(&options).expect("git walk");
    let from_dir = DirectorySource::new(&repo.work).discover(&options).expect("dir walk");
    assert_same_inventory(&from_git, &from_dir);
    assert!(from_git.refusals.iter().any(|r| r.kind == RefusalKind::FileTooLarge));
    #[cfg(unix)]
    assert!(from_git.refusals.iter().any(|r| r.kind == RefusalKind::InvalidPath));
    // Files are read from the object store, including one discovery did not list.
    let path = cartograph_core::RepoPath::new("app/util.py").expect("path");
    assert_eq!(source.read(&path, 0).expect("read"), b"def helper():\n    return 1\n");
    let pruned = cartograph_core::RepoPath::new("web/node_modules/pkg/index.js").expect("path");
    assert_eq!(source.read(&pruned, 0).expect("read"), b"module.exports = 1;\n");
    let missing = cartograph_core::RepoPath::new("app/none.py").expect("path");
    assert_eq!(source.read(&missing, 0).map_err(|e| e.kind()), Err(std::io::ErrorKind::NotFound));
}

#[test]
fn tags_branches_and_abbreviated_shas_resolve() {
    let repo = Repo::two_commits();
    let first = repo.git(&["rev-parse", "HEAD~1"]);
    let second = repo.git(&["rev-parse", "HEAD"]);
    let commit =
        |rev: &str| GitRevisionSource::open(&repo.work, rev).expect(rev).commit_hex().to_owned();
    assert_eq!(commit("v1"), first);
    assert_eq!(commit("v2"), second, "an annotated tag peels to its commit");
    assert_eq!(commit("main"), second);
    assert_eq!(commit(&first[..7]), first);
    assert_eq!(commit(&first), first);
    assert_eq!(commit("HEAD^"), first);
    // Found from a folder inside the work tree, as git finds it.
    let nested = GitRevisionSource::open(&repo.work.join("app"), "v1").expect("nested");
    assert_eq!(nested.commit_hex(), first);
    // A remote-tracking branch.
    let clone = repo.home().join("clone");
    git(repo.home(), repo.home(), &["clone", "-q", "repo", "clone"]);
    let tracking = GitRevisionSource::open(&clone, "origin/main").expect("origin/main");
    assert_eq!(tracking.commit_hex(), second);
}

#[test]
fn unknown_revisions_and_non_commits_are_one_clear_sentence() {
    let repo = Repo::two_commits();
    let home = repo.home().display().to_string();
    let blob = repo.git(&["rev-parse", "HEAD:app/util.py"]);
    let cases = [
        ("v9", "revision `v9` is not in this repository; did you mean `v1` or `v2`?".to_owned()),
        ("mian", "revision `mian` is not in this repository; did you mean `main`?".to_owned()),
        (
            "mian~1",
            "revision `mian~1` is not in this repository; did you mean `main~1`?".to_owned(),
        ),
        ("release", "revision `release` is not in this repository".to_owned()),
        ("HEAD~5", "revision `HEAD~5` is not in this repository".to_owned()),
        (
            "0123456789abcdef0123456789abcdef01234567",
            "revision `0123456789abcdef0123456789abcdef01234567` is not in this repository"
                .to_owned(),
        ),
        (blob.as_str(), format!("revision `{blob}` does not name a commit")),
    ];
    for (revision, expected) in cases {
        let text = error_text(GitRevisionSource::open(&repo.work, revision));
        assert_eq!(text, expected);
        assert!(!text.contains(&home), "{text}");
    }
    let nowhere = tempfile::tempdir().expect("tempdir");
    let text = error_text(GitRevisionSource::open(nowhere.path(), "main"));
    assert_eq!(
        text,
        "revision `main` cannot be read: the working directory is not inside a git repository"
    );
}

#[test]
fn a_shallow_clone_reads_what_it_holds_and_says_what_it_lacks() {
    let repo = Repo::two_commits();
    let parent = repo.git(&["rev-parse", "HEAD~1"]);
    let url = format!("file://{}", repo.work.display());
    git(repo.home(), repo.home(), &["clone", "-q", "--depth", "1", &url, "shallow"]);
    let shallow = repo.home().join("shallow");

    let head = GitRevisionSource::open(&shallow, "HEAD").expect("HEAD is present");
    let from_shallow = analyse(&head);
    let full = analyse(&GitRevisionSource::open(&repo.work, "HEAD").expect("HEAD"));
    assert_eq!(facts(&from_shallow), facts(&full));

    let home = repo.home().display().to_string();
    for revision in ["HEAD~1", parent.as_str(), &parent[..10]] {
        let text = error_text(GitRevisionSource::open(&shallow, revision));
        assert_eq!(
            text,
            format!(
                "revision `{revision}` is not available in this shallow clone; fetch more history (git fetch --deepen=N)"
            )
        );
        assert!(!text.contains(&home), "{text}");
    }
    let text = error_text(GitRevisionSource::open(&shallow, "v9"));
    assert!(text.starts_with("revision `v9` is not in this repository"), "{text}");
}

#[test]
fn submodules_are_refused() {
    let repo = Repo::two_commits();
    let head = repo.git(&["rev-parse", "HEAD"]);
    let cacheinfo = format!("160000,{head},vendor/sub");
    repo.git(&["update-index", "--add", "--cacheinfo", &cacheinfo]);
    repo.git(&["commit", "-q", "-m", "submodule"]);
    let source = GitRevisionSource::open(&repo.work, "HEAD").expect("HEAD");
    let inventory = source.discover(&DiscoveryOptions::default()).expect("walk");
    let sub = inventory
        .refusals
        .iter()
        .find(|r| r.location.path.as_str() == "vendor/sub")
        .expect("submodule refused");
    assert_eq!(sub.kind, RefusalKind::UnreadableFile);
    assert!(sub.reason.contains("submodule"), "{}", sub.reason);
}

#[test]
fn tree_arguments_follow_the_documented_rules() {
    let repo = Repo::two_commits();
    let cwd = repo.work.as_path();
    std::fs::create_dir_all(cwd.join("main")).expect("mkdir");
    std::fs::create_dir_all(cwd.join("other")).expect("mkdir");
    write(cwd, "v1", "{}");
    write(cwd, "snap.json", "{}");
    let home = repo.home().display().to_string();

    let parse = |arg: &str| parse_tree_arg(arg, cwd);
    let text = |arg: &str| match parse(arg) {
        Ok(spec) => panic!("expected an error for {arg}, got {spec:?}"),
        Err(error) => error.to_string(),
    };
    assert_eq!(
        text("main"),
        "`main` is both a directory and a git revision; write `./main` for the directory or `rev:main` for the revision"
    );
    assert_eq!(
        text("v1"),
        "`v1` is both a snapshot file and a git revision; write `./v1` for the file or `rev:v1` for the revision"
    );
    assert_eq!(parse("./main").expect("dir"), TreeSpec::Directory(cwd.join("./main")));
    assert_eq!(parse("main/").expect("dir"), TreeSpec::Directory(cwd.join("main/")));
    assert_eq!(parse("rev:main").expect("rev"), TreeSpec::Revision("main".to_owned()));
    assert_eq!(parse("dir:main").expect("dir"), TreeSpec::Directory(cwd.join("main")));
    assert_eq!(parse("./v1").expect("file"), TreeSpec::Snapshot(cwd.join("./v1")));
    assert_eq!(parse("snapshot:v1").expect("file"), TreeSpec::Snapshot(cwd.join("v1")));
    assert_eq!(parse("other").expect("dir"), TreeSpec::Directory(cwd.join("other")));
    assert_eq!(parse("snap.json").expect("file"), TreeSpec::Snapshot(cwd.join("snap.json")));
    assert_eq!(parse("HEAD~1").expect("rev"), TreeSpec::Revision("HEAD~1".to_owned()));
    assert_eq!(parse("v2").expect("rev"), TreeSpec::Revision("v2".to_owned()));
    let absolute = cwd.join("other").display().to_string();
    assert_eq!(parse(&absolute).expect("dir"), TreeSpec::Directory(cwd.join("other")));

    let mut errors = vec![
        text("nothing"),
        text("./nothing"),
        text(&cwd.join("nothing").display().to_string()),
        text(""),
        text("rev:"),
    ];
    assert_eq!(
        errors[0],
        "`nothing` is neither a directory, a snapshot file nor a revision of the repository at hand"
    );
    assert_eq!(errors[1], "`./nothing` is neither a directory nor a snapshot file");
    assert_eq!(errors[2], "`.../nothing` is neither a directory nor a snapshot file");

    // A misspelt tag is named with the nearest one.
    assert_eq!(
        text("v3"),
        "`v3` is neither a directory, a snapshot file nor a revision of the repository at hand; did you mean `v1` or `v2`?"
    );
    // With no repository at hand, a word that names no path cannot be a revision: said so.
    let nowhere = tempfile::tempdir().expect("tempdir");
    let outside = match parse_tree_arg("main", nowhere.path()) {
        Ok(spec) => panic!("expected an error, got {spec:?}"),
        Err(error) => error.to_string(),
    };
    assert_eq!(
        outside,
        "`main` is neither a directory nor a file here, and it cannot be read as a revision: the working directory is not inside a git repository"
    );
    errors.push(outside);
    for error in errors {
        assert!(!error.contains(&home), "{error}");
    }
}
