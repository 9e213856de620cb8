//! The flows behind the CLI: emit, lint, synthesize, on a configuration.
use anyhow::{Context, Result};
use serde::Serialize;
use std::path::{Path, PathBuf};
use trimswitch_hdl::catalog;
use trimswitch_hdl::config::Config;

/// What `emit` wrote.
#[derive(Clone, Debug, Serialize)]
pub struct Manifest {
    pub generator: String,
    pub config: String,
    pub config_hash: String,
    pub top: String,
    /// One entry per file: block name and file name (relative to the manifest).
    pub files: Vec<(String, PathBuf)>,
}

/// Emits every block of `cfg` into `out` (one `<block>.v` each) and writes
/// `out/manifest.json`. Returns the manifest.
pub fn emit(cfg: &Config, out: &Path) -> Result<Manifest> {
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let mut files = vec![];
    for e in catalog::emit_all(cfg)? {
        let path = out.join(format!("{}.v", e.name));
        write_if_changed(&path, &e.verilog)?;
        files.push((e.name.clone(), PathBuf::from(format!("{}.v", e.name))));
    }
    let manifest = Manifest {
        generator: trimswitch_hdl::emit::GENERATOR.to_string(),
        config: cfg.source.display().to_string(),
        config_hash: cfg.hash(),
        top: catalog::TOP.to_string(),
        files,
    };
    write_if_changed(&out.join("manifest.json"), &(serde_json::to_string_pretty(&manifest)? + "\n"))?;
    Ok(manifest)
}

/// Writes `text` to `path` unless the file already holds exactly that text
/// (keeps timestamps stable so downstream builds are not redone).
pub fn write_if_changed(path: &Path, text: &str) -> Result<()> {
    if std::fs::read_to_string(path).map(|t| t == text).unwrap_or(false) {
        return Ok(());
    }
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// `build/<target>/` for a configuration, under the repository root.
pub fn build_dir(cfg: &Config) -> PathBuf {
    crate::tools::repo_root().join("build").join(&cfg.target.name)
}
