//! Prints one block's Verilog for a configuration: `cargo run -p trimswitch-hdl --example peek -- <config.toml> <block>`.
fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let cfg =
        trimswitch_hdl::config::Config::load(std::path::Path::new(args.get(1).map(String::as_str).unwrap_or("configs/netfpga-sume.toml")))?;
    let e = trimswitch_hdl::gen::catalog::emit_block(&cfg, args.get(2).map(String::as_str).unwrap_or("ts_fabric"))?;
    print!("{}", e.verilog);
    Ok(())
}
