//! The host side of FrontPanel register access (`trimswitch ok`; issue 18,
//! `docs/boards.md`, "Opal Kelly host access"): the calls a PC makes to
//! read and write the switch's register map through `ts_ok_axil`'s
//! endpoints (`trimswitch_hdl::board::ok_axil` has the endpoints and the
//! status word).
//!
//! [`OkRegs`] runs the protocol over any [`FrontPanel`]: Opal Kelly's API
//! (`okFrontPanel`, through `rust-hdl-ok-frontpanel-sys`, with the cargo
//! feature `opalkelly`, which needs Opal Kelly's SDK) or, in the tests, the
//! Verilated bridge itself, so the host's sequence of calls is checked
//! against the RTL without the SDK.
use anyhow::{bail, ensure, Result};
use trimswitch_hdl::board::ok_axil::{
    CMD_READ, CMD_WRITE, STATUS_BUSY, STATUS_COUNT_LSB, STATUS_READ, TI_CMD, TO_DONE, WI_ADDR_HI, WI_ADDR_LO, WI_DATA_HI, WI_DATA_LO,
    WO_RDATA_HI, WO_RDATA_LO, WO_STATUS,
};

/// The FrontPanel calls the protocol uses (Opal Kelly's names, 16-bit
/// endpoints of a USB 2.0 module).
pub trait FrontPanel {
    /// `SetWireInValue` (the whole 16 bits).
    fn set_wire_in(&mut self, ep: u8, value: u16);
    /// `UpdateWireIns`: the wires set take effect together.
    fn update_wire_ins(&mut self);
    /// `ActivateTriggerIn`: one pulse of bit `bit`.
    fn activate_trigger_in(&mut self, ep: u8, bit: u8) -> Result<()>;
    /// `UpdateTriggerOuts`: the TriggerOuts' bits that fired since the
    /// last update.
    fn update_trigger_outs(&mut self);
    /// `IsTriggered` after an update.
    fn is_triggered(&mut self, ep: u8, mask: u16) -> bool;
    /// `UpdateWireOuts`: a snapshot of every WireOut.
    fn update_wire_outs(&mut self);
    /// `GetWireOutValue` from the last snapshot.
    fn get_wire_out(&mut self, ep: u8) -> u16;
}

/// Register access through a [`FrontPanel`] (module docs).
pub struct OkRegs<F: FrontPanel> {
    pub fp: F,
    /// `UpdateTriggerOuts` calls to wait for a command's done trigger
    /// before giving up (each a USB transfer: about 100 us).
    pub polls: u32,
}

/// A response that is not OKAY, by its AXI4-Lite code.
fn resp_name(resp: u16) -> &'static str {
    match resp {
        1 => "EXOKAY",
        2 => "SLVERR",
        3 => "DECERR (nothing mapped there)",
        _ => "OKAY",
    }
}

impl<F: FrontPanel> OkRegs<F> {
    pub fn new(fp: F) -> Self {
        OkRegs { fp, polls: 1000 }
    }

    /// The status word now.
    pub fn status(&mut self) -> u16 {
        self.fp.update_wire_outs();
        self.fp.get_wire_out(WO_STATUS)
    }

    /// One command: the wires, the trigger, the done trigger, the answer.
    /// Returns the data read (0 for a write). Errors name the address and
    /// what went wrong: the bridge busy before (another host's command), no
    /// done trigger within [`OkRegs::polls`] updates, the command count not
    /// stepped by one (the command was not taken), a response other than
    /// OKAY.
    fn command(&mut self, bits: u16, addr: u32, data: u32) -> Result<u32> {
        let what = if bits == CMD_READ { "read" } else { "write" };
        let before = self.status();
        ensure!(
            before & STATUS_BUSY == 0,
            "{what} {addr:#x}: the bridge is busy (status {before:#06x}): another host's command is under way"
        );
        self.fp.set_wire_in(WI_ADDR_LO, addr as u16);
        self.fp.set_wire_in(WI_ADDR_HI, (addr >> 16) as u16);
        self.fp.set_wire_in(WI_DATA_LO, data as u16);
        self.fp.set_wire_in(WI_DATA_HI, (data >> 16) as u16);
        self.fp.update_wire_ins();
        // Clear the done trigger of an earlier command before this one's.
        self.fp.update_trigger_outs();
        self.fp.activate_trigger_in(TI_CMD, bits.trailing_zeros() as u8)?;
        let mut done = false;
        for _ in 0..self.polls {
            self.fp.update_trigger_outs();
            if self.fp.is_triggered(TO_DONE, 1) {
                done = true;
                break;
            }
        }
        ensure!(done, "{what} {addr:#x}: no done trigger after {} updates (is the trimswitch bitstream loaded?)", self.polls);
        let after = self.status();
        let stepped = (after >> STATUS_COUNT_LSB).wrapping_sub(before >> STATUS_COUNT_LSB) & 0xFF;
        ensure!(
            stepped == 1 && (after & STATUS_READ != 0) == (bits == CMD_READ),
            "{what} {addr:#x}: the bridge did not take the command (status {before:#06x} -> {after:#06x})"
        );
        let resp = after & 3;
        if resp != 0 {
            bail!("{what} {addr:#x}: {}", resp_name(resp));
        }
        Ok(if bits == CMD_READ { self.fp.get_wire_out(WO_RDATA_LO) as u32 | (self.fp.get_wire_out(WO_RDATA_HI) as u32) << 16 } else { 0 })
    }

    /// Reads the register at byte address `addr`.
    pub fn read(&mut self, addr: u32) -> Result<u32> {
        self.command(CMD_READ, addr, 0)
    }

    /// Writes `data` to the register at byte address `addr`.
    pub fn write(&mut self, addr: u32, data: u32) -> Result<()> {
        self.command(CMD_WRITE, addr, data).map(|_| ())
    }
}

/// Opal Kelly's FrontPanel API through `rust-hdl-ok-frontpanel-sys` (cargo
/// feature `opalkelly`; `docs/boards.md` has what a user must install).
// Built only with the feature (the CI's check builds it with `cargo test`,
// not clippy): a warning here fails that build.
#[cfg(feature = "opalkelly")]
#[deny(warnings)]
pub mod device {
    use super::FrontPanel;
    use anyhow::{anyhow, Result};
    use rust_hdl_ok_frontpanel_sys::OkHandle;

    /// An opened FrontPanel device.
    pub struct Device(pub OkHandle);

    impl Device {
        /// Opens the device with serial number `serial` (the first one
        /// found when empty) and, when `bitfile` is given, configures its
        /// FPGA with it.
        pub fn open(serial: &str, bitfile: Option<&std::path::Path>) -> Result<Device> {
            let h = OkHandle::new();
            h.open_with_serial(serial).map_err(|e| anyhow!("FrontPanel: no device with serial {serial:?} (error {})", e.code))?;
            if let Some(bit) = bitfile {
                let path = bit.to_str().ok_or_else(|| anyhow!("{}: not a UTF-8 path", bit.display()))?;
                h.configure_fpga(path).map_err(|e| anyhow!("FrontPanel: configuring the FPGA with {path}: error {}", e.code))?;
            }
            Ok(Device(h))
        }
    }

    impl FrontPanel for Device {
        fn set_wire_in(&mut self, ep: u8, value: u16) {
            self.0.set_wire_in(ep as i32, value);
        }
        fn update_wire_ins(&mut self) {
            self.0.update_wire_ins();
        }
        fn activate_trigger_in(&mut self, ep: u8, bit: u8) -> Result<()> {
            self.0
                .activate_trigger_in(ep as i32, bit as i32)
                .map_err(|e| anyhow!("FrontPanel: ActivateTriggerIn({ep:#x}, {bit}): error {}", e.code))
        }
        fn update_trigger_outs(&mut self) {
            self.0.update_trigger_outs();
        }
        fn is_triggered(&mut self, ep: u8, mask: u16) -> bool {
            self.0.is_triggered(ep as i32, mask as i32)
        }
        fn update_wire_outs(&mut self) {
            self.0.update_wire_outs();
        }
        fn get_wire_out(&mut self, ep: u8) -> u16 {
            self.0.get_wire_out(ep as i32)
        }
    }
}

/// The XEM7010's pins as rust-hdl's board-support package for it has them
/// (`rust-hdl-bsp-ok-xem7010`, `rust-hdl-ok-core`: the host interface, the
/// LEDs, the oscillator), against `boards/opalkelly-xem7010/xem7010_top.xdc`:
/// every pin of the BSP is the XDC's for the same port bit, with the same
/// I/O standard. Runs with the feature (the CI builds it against a stand-in
/// of the SDK, `tests/tools/cli.rs`).
#[cfg(all(test, feature = "opalkelly"))]
#[deny(warnings)]
mod bsp_pins {
    use rust_hdl::prelude::*;
    use rust_hdl_bsp_ok_xem7010::xem7010::pins::{xem_7010_leds, xem_7010_neg_clock, xem_7010_pos_clock};
    use rust_hdl_ok_core::core::prelude::OpalKellyHostInterface;
    use std::collections::BTreeMap;

    /// (port bit, pin, I/O standard) of a BSP signal named `port` in the top.
    fn bsp(port: &str, width: usize, atom: &dyn Atom, out: &mut Vec<(String, String, String)>) {
        let mut loc = BTreeMap::new();
        let mut std = BTreeMap::new();
        for c in atom.constraints() {
            match c.constraint {
                Constraint::Location(l) => {
                    loc.insert(c.index, l);
                }
                Constraint::Kind(k) => {
                    let s = match k {
                        SignalType::LowVoltageCMOS_3v3 => "LVCMOS33",
                        SignalType::LowVoltageDifferentialSignal_2v5 => "LVDS_25",
                        other => panic!("{port}: I/O standard {other:?} not expected on the XEM7010"),
                    };
                    std.insert(c.index, s.to_string());
                }
                _ => {}
            }
        }
        assert_eq!(loc.len(), width, "{port}: the BSP places {} of {width} bits", loc.len());
        for (i, pin) in loc {
            let name = if width == 1 { port.to_string() } else { format!("{port}[{i}]") };
            out.push((name, pin, std.get(&i).cloned().unwrap_or_default()));
        }
    }

    /// Opening a device that is not there is an error naming the serial
    /// number and FrontPanel's code, not a panic (with the CI's stand-in
    /// library no device is ever there).
    #[test]
    fn no_device_is_an_error() {
        let e = crate::ok_host::device::Device::open("NOSUCH", None).err().expect("a device opened").to_string();
        assert!(e.contains("FrontPanel: no device with serial \"NOSUCH\""), "{e}");
    }

    #[test]
    fn xdc_pins_are_the_bsps() {
        let hi = OpalKellyHostInterface::xem_7010();
        let mut want = vec![];
        bsp("hi_in", 8, &hi.sig_in, &mut want);
        bsp("hi_out", 2, &hi.sig_out, &mut want);
        bsp("hi_inout", 16, &hi.sig_inout, &mut want);
        bsp("hi_aa", 1, &hi.sig_aa, &mut want);
        bsp("hi_muxsel", 1, &hi.sig_mux, &mut want);
        bsp("led", 8, &xem_7010_leds(), &mut want);
        bsp("sys_clk_p", 1, &xem_7010_pos_clock(), &mut want);
        bsp("sys_clk_n", 1, &xem_7010_neg_clock(), &mut want);
        let xdc = std::fs::read_to_string(crate::tools::repo_root().join("boards/opalkelly-xem7010/xem7010_top.xdc")).unwrap();
        let mut got = BTreeMap::new();
        for line in xdc.lines().filter(|l| l.starts_with("set_property -dict {PACKAGE_PIN ")) {
            let dict = &line["set_property -dict {".len()..line.find('}').unwrap()];
            let words: Vec<&str> = dict.split_whitespace().collect();
            // `[get_ports name]` or `[get_ports {name[i]}]`.
            let port = line.rsplit("get_ports ").next().unwrap().trim_end().strip_suffix(']').unwrap();
            let port = port.trim_start_matches('{').trim_end_matches('}').to_string();
            let pin = words[1].to_string();
            let std = words.iter().position(|w| *w == "IOSTANDARD").map(|i| words[i + 1].to_string()).unwrap_or_default();
            got.insert(port, (pin, std));
        }
        assert_eq!(want.len(), 38, "the BSP's port bits");
        for (port, pin, std) in &want {
            let (xpin, xstd) = got.get(port).unwrap_or_else(|| panic!("{port}: not in xem7010_top.xdc"));
            assert_eq!((xpin, xstd), (pin, std), "{port}: XDC {xpin} {xstd}, BSP {pin} {std}");
        }
        assert_eq!(got.len(), want.len(), "the XDC places ports the BSP does not: {got:?}");
    }
}
