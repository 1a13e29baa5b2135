//! Prisma schema files: the line-oriented reader, then the whole pipeline on a tree holding the
//! schema and a client that queries its models (so the Prisma linker runs on what was read).
#![no_main]

use cartograph_core::RepoPath;
use cartograph_extract::extract_prisma;
use cartograph_fuzz::{MemoryTree, analyse, text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = RepoPath::new("prisma/schema.prisma").expect("a fixed valid path");
    let _ = extract_prisma(&path, &text(data));
    let tree = MemoryTree::new([
        ("prisma/schema.prisma", data.to_vec()),
        (
            "src/db.ts",
            b"import { PrismaClient } from '@prisma/client';\nconst prisma = new PrismaClient();\nexport const f = () => prisma.user.findMany();\nexport const g = () => prisma.item.create({ data: {} });\n".to_vec(),
        ),
        ("package.json", br#"{"name":"app","dependencies":{"@prisma/client":"5"}}"#.to_vec()),
    ]);
    let _ = analyse(&tree);
});
