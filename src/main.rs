//! `trimswitch`: emit, lint, synthesize and simulate the trimswitch data path.
use anyhow::Result;
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use trimswitch::flows;
use trimswitch_hdl::config::Config;

#[derive(Parser)]
#[command(name = "trimswitch", version, about = "Open FPGA switch data path: packet trimming, PL2, Protego")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Write one Verilog file per block (plus manifest.json) for a configuration.
    Emit {
        /// Target configuration (configs/<target>.toml).
        #[arg(long, default_value = "configs/netfpga-sume.toml")]
        config: PathBuf,
        /// Output directory [default: build/<target>/verilog].
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

fn main() {
    if let Err(e) = run(Cli::parse()) {
        eprintln!("trimswitch: error: {e:#}");
        std::process::exit(1);
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.cmd {
        Cmd::Emit { config, out } => {
            let cfg = Config::load(&config)?;
            let out = out.unwrap_or_else(|| flows::build_dir(&cfg).join("verilog"));
            let m = flows::emit(&cfg, &out)?;
            println!("emitted {} files for {} (config hash {}) into {}", m.files.len(), cfg.target.name, m.config_hash, out.display());
            for (name, path) in &m.files {
                println!("  {name:<18} {}", path.display());
            }
        }
    }
    Ok(())
}
