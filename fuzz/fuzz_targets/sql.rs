//! SQL: the raw-SQL tokenizer and statement reader on the text itself, the `CREATE TABLE` reader
//! of schema files, and the whole pipeline on a tree where the text is a schema file and the SQL
//! of a Python and a TypeScript execution call (so the literal reassembly and the table linker run).
#![no_main]

use cartograph_extract::extract_sql_schema;
use cartograph_extract::recognise::tables::scan_raw_sql;
use cartograph_fuzz::{MemoryTree, analyse, text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let sql = text(data);
    let _ = scan_raw_sql(&sql);
    let _ = extract_sql_schema(&sql);
    let mut python =
        b"import sqlite3\ncur = sqlite3.connect('x').cursor()\ncur.execute(\"\"\"".to_vec();
    python.extend_from_slice(data);
    python.extend_from_slice(b"\"\"\")\n");
    let mut typescript = b"import { sql } from 'db';\nexport const q = () => db.query(`".to_vec();
    typescript.extend_from_slice(data);
    typescript.extend_from_slice(b"`);\n");
    let tree = MemoryTree::new([
        ("db/schema.sql", data.to_vec()),
        ("app/queries.py", python),
        ("web/queries.ts", typescript),
    ]);
    let _ = analyse(&tree);
});
