//! trimswitch: library behind the `trimswitch` command-line tool.
//!
//! - [`bitstream`]: the open ECP5 bitstream flow of a board (`make bitstream`).
//! - [`flows`]: emit, lint and synthesize a configuration (what the CLI runs).
//! - [`formal`]: SymbiYosys proofs of the packet FIFO on a small instance.
//! - [`lint`] and [`synth`]: Verilator lint and Yosys synthesis as checks with reports.
//! - [`levels`]: LUT levels of a Xilinx netlist, carry chains counted per 16 bits.
//! - [`timing`]: place-and-route timing (nextpnr-ecp5) of every block between registers.
//! - [`ok_host`]: register access through Opal Kelly's FrontPanel (`trimswitch ok`).
//! - [`replay`]: pcap captures through the ingress pipeline (RTL or golden model).
pub mod bitstream;
pub mod flows;
pub mod formal;
pub mod formal_tm;
pub mod levels;
pub mod lint;
pub mod ok_host;
pub mod replay;
pub mod synth;
pub mod timing;
pub mod tools;
