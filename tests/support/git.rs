//! Runs git for the tests that build repositories: shared by the CLI contract tests and the MCP
//! server tests.

use std::path::Path;

/// Runs git in `repo` with a fixed identity and no signing, quietly; panics when it fails. No
/// machine or user configuration is read: no system file, a global file that does not exist, and
/// `HOME` at the repository's temporary parent folder, so a developer's hooks, signing or
/// templates cannot change what the tests commit.
pub fn git_in(repo: &Path, args: &[&str]) {
    let home = repo.parent().unwrap_or(repo);
    let status = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(["-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"])
        .args(["-c", "init.defaultBranch=main", "-c", "core.autocrlf=false"])
        .args(args)
        .current_dir(repo)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", home.join("gitconfig-that-does-not-exist"))
        .env("HOME", home)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}
