//! `ts_uart_axil`, the register map over a serial line (issue 18,
//! `docs/boards.md`, "Host access over a serial line"), in Verilator: a
//! host model writes the protocol's bytes on the line bit by bit (at a
//! rate 3% off the bridge's, the way two crystals and a rounded divider
//! differ) and decodes the answers from the bridge's line; an AXI4-Lite
//! slave behind the bridge records writes and answers reads. The first
//! commands are encoded and their answers decoded by the host tool,
//! `scripts/uart_regs.py`. Writes and reads arrive exactly; a junk byte, a command cut by silence and a byte
//! with a low stop bit are each dropped and counted, and the next command
//! is served.
use crate::mac_stats::SwitchSide;
use anyhow::{ensure, Result};
use trimswitch_hdl::board::uart_axil::{UartAxil, GAP_BITS};
use trimswitch_sim::harness::dut::model_of;
use trimswitch_sim::harness::tb::{Agent, Tb};
use trimswitch_sim::harness::verilator::{Model, Port};

/// Clock cycles per bit of the bridge (the smallest it takes).
const DIV: f64 = 16.0;

/// The host: its line levels, one per cycle, queued; and the bytes decoded
/// from the bridge's line (sampled in each bit's middle).
struct Host {
    rx: Port,
    tx: Port,
    line: std::collections::VecDeque<bool>,
    /// The host's cycles per bit (a little off the bridge's).
    bit: f64,
    t: f64,
    got: Vec<u8>,
    /// Decoding: cycles since the start edge, or none.
    at: Option<u64>,
    byte: u16,
}

impl Host {
    /// Queues `bytes`, each framed (start, 8 bits LSB first, stop);
    /// `bad_stop` sends the stop bit low.
    fn send(&mut self, bytes: &[u8], bad_stop: bool) {
        for &b in bytes {
            let bits: Vec<bool> = std::iter::once(false).chain((0..8).map(|i| b >> i & 1 == 1)).chain(std::iter::once(!bad_stop)).collect();
            for v in bits {
                self.t += self.bit;
                while (self.line.len() as f64) < self.t {
                    self.line.push_back(v);
                }
            }
        }
    }
    /// `n` bit times of idle line.
    fn pause(&mut self, n: f64) {
        self.t += n * self.bit;
        while (self.line.len() as f64) < self.t {
            self.line.push_back(true);
        }
    }
}

impl Agent for Host {
    fn drive(&mut self, m: &mut Model, _cycle: u64) {
        let v = self.line.pop_front().unwrap_or(true);
        self.t = (self.t - 1.0).max(0.0);
        m.set(&self.rx, v as u64);
    }
    fn sample(&mut self, m: &Model, _cycle: u64) {
        let v = m.get(&self.tx) == 1;
        match self.at {
            None if !v => self.at = Some(0),
            None => {}
            Some(c) => {
                let c = c + 1;
                self.at = Some(c);
                // Bit k's middle: (k + 0.5) * DIV cycles after the edge.
                let mid = |k: u64| (k as f64 * DIV + DIV / 2.0) as u64;
                if (1..=8).any(|k| c == mid(k)) {
                    self.byte = (self.byte >> 1) | ((v as u16) << 7);
                }
                if c == mid(9) {
                    assert!(v, "the bridge's stop bit is low");
                    self.got.push(self.byte as u8);
                    self.at = None;
                }
            }
        }
    }
    fn idle(&self) -> bool {
        self.line.is_empty() && self.at.is_none()
    }
}

/// The host tool's output for `args` (`--encode`: the command's bytes).
fn script(args: &[&str]) -> Result<Vec<u8>> {
    let out =
        std::process::Command::new("python3").arg("scripts/uart_regs.py").args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output()?;
    ensure!(out.status.success(), "uart_regs.py {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout)?.split_whitespace().map(|h| Ok(u8::from_str_radix(h, 16)?)).collect()
}

/// What the host tool says an answer means (`--decode`).
fn decoded(answer: &[u8]) -> Result<String> {
    let hex: Vec<String> = answer.iter().map(|b| format!("{b:02x}")).collect();
    let out = std::process::Command::new("python3")
        .arg("scripts/uart_regs.py")
        .arg("--decode")
        .args(&hex)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()?;
    ensure!(out.status.success(), "uart_regs.py --decode {hex:?}: {}", String::from_utf8_lossy(&out.stderr));
    Ok(String::from_utf8(out.stdout)?.trim().to_string())
}

fn write_cmd(addr: u32, data: u32) -> Vec<u8> {
    [vec![b'W'], addr.to_be_bytes().to_vec(), data.to_be_bytes().to_vec()].concat()
}

fn read_cmd(addr: u32) -> Vec<u8> {
    [vec![b'R'], addr.to_be_bytes().to_vec()].concat()
}

#[test]
fn commands_over_the_line() -> Result<()> {
    // A 1.6 MHz clock at 100 000 baud: 16 cycles per bit.
    let m = model_of(&mut UartAxil::<19>::new(1.6e6, 100e3)?, "ts_uart_axil", "d16")?.instantiate();
    let mut host =
        Host { rx: m.port("rx")?, tx: m.port("tx")?, line: Default::default(), bit: DIV * 1.03, t: 0.0, got: vec![], at: None, byte: 0 };
    let mut sw = SwitchSide::new(&m, "m_axil");
    let (junk, timeouts, framing) = (m.port("junk")?, m.port("timeouts")?, m.port("framing")?);
    let mut tb = Tb::new(m, "clock", Some("reset"))?;
    tb.reset(4);
    // The line idles high before the first byte (a start is a falling edge).
    host.pause(2.0);
    let exchange = |tb: &mut Tb, host: &mut Host, sw: &mut SwitchSide, bytes: &[u8], answer: usize| -> Result<Vec<u8>> {
        let before = host.got.len();
        host.send(bytes, false);
        host.pause(2.0);
        tb.run_until(&mut [host, sw], 20_000, |_, a| a[0].idle())?;
        let start = tb.cycle();
        while host.got.len() < before + answer {
            tb.step(&mut [host, sw]);
            ensure!(
                tb.cycle() - start < 20 * 16 * answer as u64 + 400,
                "{} of {answer} answer bytes: {:02x?}, writes {:?}",
                host.got.len() - before,
                host.got,
                sw.writes
            );
        }
        Ok(host.got[before..].to_vec())
    };
    // A write and a read, with the 19-bit address of a board map, encoded
    // and decoded by the host tool (scripts/uart_regs.py).
    let cmd = script(&["--encode", "write", "0x40008", "0xdeadbeef"])?;
    ensure!(cmd == write_cmd(0x4_0008, 0xDEAD_BEEF), "uart_regs.py --encode write: {cmd:02x?}");
    let a = exchange(&mut tb, &mut host, &mut sw, &cmd, 2)?;
    ensure!(a == [b'w', 0] && sw.writes == [(0x4_0008, 0xDEAD_BEEF)], "write: answer {a:?}, slave saw {:?}", sw.writes);
    let cmd = script(&["--encode", "read", "0x12344"])?;
    let a = exchange(&mut tb, &mut host, &mut sw, &cmd, 6)?;
    let said = decoded(&a)?;
    ensure!(said == "read OKAY 0xc0df2344", "read: {a:02x?}: uart_regs.py says {said:?}");
    // A junk byte is dropped and counted; the command after it is served.
    let a = exchange(&mut tb, &mut host, &mut sw, &[&[0x00u8][..], &read_cmd(0x10)].concat(), 6)?;
    ensure!(a[..2] == [b'r', 0] && tb.model.get(&junk) == 1, "after junk: {a:02x?}, junk {}", tb.model.get(&junk));
    // A command cut short, then silence: dropped after GAP_BITS bit times.
    host.send(&write_cmd(0x20, 1)[..5], false);
    host.pause(GAP_BITS as f64 * 1.05);
    tb.run_until(&mut [&mut host, &mut sw], 100_000, |_, a| a[0].idle())?;
    ensure!(tb.model.get(&timeouts) == 1 && sw.writes.len() == 1, "timeouts {}, writes {:?}", tb.model.get(&timeouts), sw.writes);
    let a = exchange(&mut tb, &mut host, &mut sw, &write_cmd(0x24, 2), 2)?;
    ensure!(a == [b'w', 0] && sw.writes.last() == Some(&(0x24, 2)), "after a timeout: {a:?} {:?}", sw.writes);
    // A byte with a low stop bit is dropped and counted.
    host.send(b"R", true);
    host.pause(3.0);
    tb.run_until(&mut [&mut host, &mut sw], 20_000, |_, a| a[0].idle())?;
    ensure!(tb.model.get(&framing) == 1, "framing {}", tb.model.get(&framing));
    let a = exchange(&mut tb, &mut host, &mut sw, &read_cmd(0x3_FFFC), 6)?;
    ensure!(a[..2] == [b'r', 0] && a[2..] == (0xC0DE_0000u32 | 0x3_FFFC).to_be_bytes(), "after a framing error: {a:02x?}");
    // Twenty commands back to back, each sent as soon as its answer came.
    for i in 0..20u32 {
        let a = exchange(&mut tb, &mut host, &mut sw, &write_cmd(0x100 + 4 * i, i * 7), 2)?;
        ensure!(a == [b'w', 0], "command {i}: {a:?}");
    }
    ensure!(sw.writes.len() == 22 && sw.writes[21] == (0x100 + 76, 133), "{:?}", sw.writes.last());
    eprintln!("uart_axil: 25 commands, 1 junk byte, 1 timeout, 1 framing error, {} cycles", tb.cycle());
    Ok(())
}
