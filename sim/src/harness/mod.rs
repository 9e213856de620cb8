//! The Verilator harness: [`verilator`] (model build and cache, port access),
//! [`clocks`] (two unrelated clocks),
//! [`tb`] (cycle-based testbench and agents), [`dut`] (a rust-hdl block to a
//! model; seeded traffic).
pub mod clocks;
pub mod dut;
pub mod tb;
pub mod verilator;

/// How many processes a tool run may keep busy at once: Verilator model
/// builds (`make -j`), and the synthesis, place-and-route and formal jobs the
/// flows run side by side. `TS_JOBS` (a whole number, 1 or more) when it is
/// set and not empty, else the machine's cores.
///
/// `make test` sets `TS_JOBS=1`: cargo-nextest already runs one test per
/// core, and a test that ran two jobs of its own beside another test put
/// four processes on two cores, which cost CPU time, not just wall time
/// (nextpnr's WebAssembly build: 41 CPU-s per run two at a time, 53 four at a
/// time; `docs/toolchain.md`, "CI time").
pub fn jobs() -> anyhow::Result<usize> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    parse_jobs(std::env::var("TS_JOBS").ok().as_deref(), cores)
}

/// [`jobs`] for a `TS_JOBS` value and a number of cores.
pub fn parse_jobs(value: Option<&str>, cores: usize) -> anyhow::Result<usize> {
    match value.map(str::trim).filter(|v| !v.is_empty()) {
        None => Ok(cores.max(1)),
        Some(v) => match v.parse::<usize>() {
            Ok(n) if n >= 1 => Ok(n),
            _ => anyhow::bail!("TS_JOBS={v:?}: expected a whole number of parallel jobs, 1 or more"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::parse_jobs;

    #[test]
    fn ts_jobs_is_a_count_or_the_cores() {
        assert_eq!(parse_jobs(None, 2).unwrap(), 2);
        assert_eq!(parse_jobs(Some(" "), 4).unwrap(), 4);
        assert_eq!(parse_jobs(Some("1"), 2).unwrap(), 1);
        assert_eq!(parse_jobs(Some(" 3 "), 2).unwrap(), 3);
        for bad in ["0", "-1", "two", "1.5"] {
            let e = parse_jobs(Some(bad), 2).unwrap_err().to_string();
            assert!(e.contains("TS_JOBS") && e.contains(bad), "{e}");
        }
    }
}
