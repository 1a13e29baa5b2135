//! One sentence about a tree the analyser could not read, worded the same way for every front end:
//! the front end supplies how the reader named the tree (already safe to show), this module says
//! what went wrong. The analyser's own errors name no path, so neither does the sentence.

use cartograph_pipeline::analyse::AnalyseError;
use cartograph_pipeline::discover::DiscoverError;

/// `subject` (the tree as its reader named it: `` `./web` `` in the CLI, `` tree `web` `` in an MCP
/// answer) followed by what went wrong: not a directory, missing, unreadable, or the analyser's
/// own sentence.
pub fn failure_sentence(error: &AnalyseError, subject: &str) -> String {
    match error {
        AnalyseError::Discover(DiscoverError::NotADirectory) => {
            format!("{subject} is not a directory")
        }
        AnalyseError::Discover(DiscoverError::Unreadable(std::io::ErrorKind::NotFound)) => {
            format!("{subject} does not exist")
        }
        AnalyseError::Discover(DiscoverError::Unreadable(kind)) => {
            format!("{subject} cannot be read ({kind})")
        }
        other => format!("{subject} cannot be analysed: {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_failure_is_one_sentence_about_the_named_tree() {
        let cases = [
            (AnalyseError::Discover(DiscoverError::NotADirectory), "`x` is not a directory"),
            (
                AnalyseError::Discover(DiscoverError::Unreadable(std::io::ErrorKind::NotFound)),
                "`x` does not exist",
            ),
            (
                AnalyseError::Discover(DiscoverError::Unreadable(
                    std::io::ErrorKind::PermissionDenied,
                )),
                "`x` cannot be read (permission denied)",
            ),
            (
                AnalyseError::Discover(DiscoverError::ObjectStore),
                "`x` cannot be analysed: the revision's tree cannot be read from the git object store",
            ),
            (AnalyseError::ThreadPool(3), "`x` cannot be analysed: cannot start 3 worker threads"),
            (
                AnalyseError::PutAside,
                "`x` cannot be analysed: what the run kept in a temporary file could not be read \
                 back",
            ),
        ];
        for (error, expected) in cases {
            assert_eq!(failure_sentence(&error, "`x`"), expected);
        }
    }
}
